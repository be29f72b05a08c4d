// The staged deployment reader in rocmtune-archive.so (sys/staged_abi.h): GLib's GVariant only.
//
// The format is ostree's own (ostreedev/ostree src/libostree/ostree-sysroot-deploy.c
// ostree_sysroot_stage_tree_with_options writes it, ostree-sysroot.c _ostree_sysroot_reload_staged
// and _ostree_sysroot_finalize_impl_staged_deployment read it back): the serialized data of one
// `a{sv}` with
//   "target"            a{sv}  the staged deployment: "name" s (CSUM.SERIAL), "osname" s,
//                              "bootcsum" s (serialize_deployment_to_variant)
//   "merge-deployment"  a{sv}  the same for the deployment /etc is merged from
//   "kargs"             as     the staged deployment's kernel arguments; absent: the merge
//                              deployment's (sysroot_finalize_deployment)
//   "overlay-initrds"   as
//   "bootconfig-extra"  a{ss}  BLS keys beyond ostree's own, such as bootc's x-options-source-*
//   "locked"            b      finalization locked (also /run/ostree/staged-deployment-locked)
// The bytes are untrusted: read with trusted=FALSE and accepted only in normal form, so a file
// cut short or changed is an error naming why, never GLib's default values for it.
#include <glib.h>

#include <cstdio>
#include <string>

#include "sys/staged_abi.h"
#include "util/handle.h"

namespace rocmtune::sys {
namespace {

void UnrefVariant(GVariant* v) { g_variant_unref(v); }
void UnrefBytes(GBytes* b) { g_bytes_unref(b); }
using Variant = Handle<GVariant*, UnrefVariant>;
using Bytes = Handle<GBytes*, UnrefBytes>;

class StagedReader {
 public:
  StagedReader(const StagedVisitor& visitor, char* error, size_t error_size)
      : visitor_(visitor), error_(error), error_size_(error_size) {}

  StagedStatus Run(const void* data, size_t size) {
    // g_bytes_new copies into memory malloc aligns for every GVariant type.
    Bytes bytes(g_bytes_new(data, size));
    if (!bytes) return StagedStatus::kNoMemory;
    Variant dict(g_variant_ref_sink(g_variant_new_from_bytes(G_VARIANT_TYPE_VARDICT, bytes.get(), FALSE)));
    if (!dict) return StagedStatus::kNoMemory;
    if (!g_variant_is_normal_form(dict.get()))
      return Fail("not one GVariant a{sv} in normal form, as ostree writes it (cut short or corrupt)");
    Variant target = Lookup(dict.get(), "target", "a{sv}");
    if (failed_) return StagedStatus::kInvalid;
    if (!target) return Fail("no \"target\": not a staged deployment ostree wrote");
    if (!Deployment(target.get(), "target", StagedField::kTargetName, StagedField::kTargetOsname))
      return StagedStatus::kInvalid;
    Variant merge = Lookup(dict.get(), "merge-deployment", "a{sv}");
    if (merge && !Deployment(merge.get(), "merge-deployment", StagedField::kMergeName, StagedField::kMergeOsname))
      return StagedStatus::kInvalid;
    Variant kargs = Lookup(dict.get(), "kargs", "as");
    if (kargs) {
      Emit(StagedField::kKargs, nullptr, nullptr);
      for (gsize i = 0, n = g_variant_n_children(kargs.get()); i < n; ++i) {
        Variant arg(g_variant_get_child_value(kargs.get(), i));
        Emit(StagedField::kKargs, nullptr, g_variant_get_string(arg.get(), nullptr));
      }
    }
    Variant extra = Lookup(dict.get(), "bootconfig-extra", "a{ss}");
    if (extra) {
      for (gsize i = 0, n = g_variant_n_children(extra.get()); i < n; ++i) {
        const char* key = nullptr;
        const char* value = nullptr;
        g_variant_get_child(extra.get(), i, "{&s&s}", &key, &value);
        Emit(StagedField::kExtra, key, value);
      }
    }
    Variant locked = Lookup(dict.get(), "locked", "b");
    if (locked && g_variant_get_boolean(locked.get())) Emit(StagedField::kLocked, nullptr, nullptr);
    return failed_ ? StagedStatus::kInvalid : StagedStatus::kOk;
  }

 private:
  StagedStatus Fail(const std::string& why) {
    failed_ = true;
    if (error_size_ > 0) std::snprintf(error_, error_size_, "%s", why.c_str());
    return StagedStatus::kInvalid;
  }

  void Emit(StagedField field, const char* key, const char* value) const {
    visitor_.on_value(visitor_.ctx, field, key, value);
  }

  // The value of `key` when it has `type`; null when absent, and a failure when of another type
  // (ostree's g_variant_dict_lookup would take it as absent: rocmtune says it cannot read it).
  Variant Lookup(GVariant* dict, const char* key, const char* type) {
    Variant v(g_variant_lookup_value(dict, key, nullptr));
    if (v && !g_variant_is_of_type(v.get(), G_VARIANT_TYPE(type))) {
      Fail(std::string("\"") + key + "\" is " + g_variant_get_type_string(v.get()) + ", not " + type);
      return Variant();
    }
    return v;
  }

  // A serialized deployment: "name" and "osname" strings, as _ostree_sysroot_deserialize_
  // deployment_from_variant requires them.
  bool Deployment(GVariant* v, const char* what, StagedField name_field, StagedField osname_field) {
    for (auto [key, field] : {std::pair{"name", name_field}, std::pair{"osname", osname_field}}) {
      Variant s = Lookup(v, key, "s");
      if (failed_) return false;
      if (!s) {
        Fail(std::string("\"") + what + "\" has no \"" + key + "\"");
        return false;
      }
      Emit(field, nullptr, g_variant_get_string(s.get(), nullptr));
    }
    return true;
  }

  const StagedVisitor& visitor_;
  char* error_;
  size_t error_size_;
  bool failed_ = false;
};

}  // namespace

extern "C" __attribute__((visibility("default"))) StagedStatus RocmtuneReadStagedDeployment(
    const void* data, size_t size, const StagedVisitor* visitor, char* error, size_t error_size) {
  if (error_size > 0) error[0] = '\0';
  return StagedReader(*visitor, error, error_size).Run(data, size);
}

}  // namespace rocmtune::sys
