// rocmtuned's Reapply(card) argument (api::IsReapplyCard, checked before polkit is asked and the
// card becomes a polkit detail): "" or at most 64 of [A-Za-z0-9:.]. Invariants: the check is
// exactly that language (an independent scan), so nothing with a '/', '-', whitespace or a
// newline passes; and api::Reapply with an accepted card that names no GPU of the world sends
// nothing to the writer (a card is looked up among the GPUs, never used as a path).
#include <cstddef>
#include <cstdint>
#include <string>

#include "api/reapply.h"
#include "fuzz_support.h"
#include "sys/root.h"

using namespace rocmtune;

namespace {

class RecordingWriter final : public api::Writer {
 public:
  Result<void> MayWrite(const sys::Root&) const override { return {}; }
  Result<plan::HelperReply> Apply(const plan::Plan& plan, bool) override {
    applied += plan.ops.size() + 1;
    plan::HelperReply reply;
    reply.status = plan::HelperStatus::kUnchanged;
    return reply;
  }
  Result<plan::HelperReply> Recover() override {
    plan::HelperReply reply;
    reply.status = plan::HelperStatus::kUnchanged;
    return reply;
  }
  size_t applied = 0;
};

bool InLanguage(std::string_view card) {
  if (card.size() > 64) return false;
  for (unsigned char c : card)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ':' || c == '.'))
      return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchRoot world("rx6600");
  const std::string card(fuzz::AsText(data, size));
  const bool accepted = api::IsReapplyCard(card);
  if (accepted != InLanguage(card)) __builtin_trap();
  if (!accepted || card.empty() || card.starts_with("card") || card.find(':') != std::string::npos) return 0;
  // Neither cardN nor a PCI address: no GPU of the world, so nothing to write.
  auto root = sys::Root::Open(world.path());
  if (!root) __builtin_trap();
  RecordingWriter writer;
  auto report = api::Reapply(*root, card, {}, writer);
  if (writer.applied != 0) __builtin_trap();
  return 0;
}
