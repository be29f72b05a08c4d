// ostree's /run/ostree/staged-deployment made with GLib the way ostree makes it
// (ostreedev/ostree src/libostree/ostree-sysroot-deploy.c ostree_sysroot_stage_tree_with_options
// and serialize_deployment_to_variant): a GVariantBuilder of "a{sv}", then g_variant_get_data.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rocmtune::testing {

struct StagedSpec {
  std::string name = "0123abcd.0";  // CSUM.SERIAL
  std::string osname = "fedora";
  std::string bootcsum = "5e3f";
  std::optional<std::vector<std::string>> kargs;  // "kargs" (nullopt: not written)
  std::optional<std::string> merge_name;          // "merge-deployment" of the same OS
  std::map<std::string, std::string> bootconfig_extra;
  bool locked = false;
  std::map<std::string, std::string> string_keys;  // more keys, each a string (wrong types)
};

// The bytes ostree writes for `spec`.
std::string StagedDeploymentBytes(const StagedSpec& spec);
// Writes them to ROOT/run/ostree/staged-deployment.
void WriteStagedDeployment(const std::string& root, const StagedSpec& spec);
// The deployment names ("CSUM.SERIAL") of a world tests/support/ostree_world.h made, oldest
// first (one commit: ostree numbers its deployments' serials 0, 1, ... in the order deployed).
std::vector<std::string> DeploymentNames(const std::string& root);

}  // namespace rocmtune::testing
