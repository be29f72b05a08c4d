#include "client/context.h"

namespace rocmtune::client {

Result<sys::Root> Context::OpenRoot() const {
  if (!opened_) {
    auto opened = sys::Root::Open(root);
    if (!opened) return tl::unexpected(opened.error());
    opened_ = std::make_shared<const sys::Root>(std::move(*opened));
  }
  return opened_->Duplicate();
}

Result<api::System> Context::LoadSystem() const {
  auto opened = OpenRoot();
  if (!opened) return tl::unexpected(opened.error());
  return api::LoadSystem(std::move(*opened));
}

Result<api::System> Context::LoadSystemForReading() const {
  auto opened = OpenRoot();
  if (!opened) return tl::unexpected(opened.error());
  return api::LoadSystemForReading(std::move(*opened));
}

}  // namespace rocmtune::client
