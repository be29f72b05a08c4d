#include "staged_deployment_writer.h"

#include <glib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace rocmtune::testing {
namespace {

// serialize_deployment_to_variant: "name" CSUM.SERIAL, "osname", "bootcsum".
GVariant* Deployment(const std::string& name, const std::string& osname, const std::string& bootcsum) {
  GVariantBuilder b;
  g_variant_builder_init(&b, G_VARIANT_TYPE("a{sv}"));
  g_variant_builder_add(&b, "{sv}", "name", g_variant_new_string(name.c_str()));
  g_variant_builder_add(&b, "{sv}", "osname", g_variant_new_string(osname.c_str()));
  g_variant_builder_add(&b, "{sv}", "bootcsum", g_variant_new_string(bootcsum.c_str()));
  return g_variant_builder_end(&b);
}

GVariant* Strv(const std::vector<std::string>& items) {
  std::vector<const char*> ptrs;
  for (const std::string& s : items) ptrs.push_back(s.c_str());
  ptrs.push_back(nullptr);
  return g_variant_new_strv(ptrs.data(), static_cast<gssize>(items.size()));
}

}  // namespace

std::string StagedDeploymentBytes(const StagedSpec& spec) {
  GVariantBuilder b;
  g_variant_builder_init(&b, G_VARIANT_TYPE("a{sv}"));
  g_variant_builder_add(&b, "{sv}", "target", Deployment(spec.name, spec.osname, spec.bootcsum));
  if (spec.locked) g_variant_builder_add(&b, "{sv}", "locked", g_variant_new_boolean(TRUE));
  if (spec.merge_name)
    g_variant_builder_add(&b, "{sv}", "merge-deployment", Deployment(*spec.merge_name, spec.osname, spec.bootcsum));
  if (spec.kargs) g_variant_builder_add(&b, "{sv}", "kargs", Strv(*spec.kargs));
  if (!spec.bootconfig_extra.empty()) {
    GVariantBuilder extra;
    g_variant_builder_init(&extra, G_VARIANT_TYPE("a{ss}"));
    for (const auto& [k, v] : spec.bootconfig_extra) g_variant_builder_add(&extra, "{ss}", k.c_str(), v.c_str());
    g_variant_builder_add(&b, "{sv}", "bootconfig-extra", g_variant_builder_end(&extra));
  }
  for (const auto& [k, v] : spec.string_keys)
    g_variant_builder_add(&b, "{sv}", k.c_str(), g_variant_new_string(v.c_str()));
  GVariant* state = g_variant_ref_sink(g_variant_builder_end(&b));
  std::string out(static_cast<const char*>(g_variant_get_data(state)), g_variant_get_size(state));
  g_variant_unref(state);
  return out;
}

void WriteStagedDeployment(const std::string& root, const StagedSpec& spec) {
  fs::path path = fs::path(root) / "run/ostree/staged-deployment";
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << StagedDeploymentBytes(spec);
}

std::vector<std::string> DeploymentNames(const std::string& root) {
  fs::path dir = fs::path(root) / "sysroot/ostree/deploy/fedora/deploy";
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory()) out.push_back(e.path().filename().string());
  if (out.empty()) throw std::runtime_error("no deployment in " + dir.string());
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return std::stoi(a.substr(a.rfind('.') + 1)) < std::stoi(b.substr(b.rfind('.') + 1));
  });
  return out;
}

}  // namespace rocmtune::testing
