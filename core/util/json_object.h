// A JSON object built member by member, in order, each member moved in once. nlohmann's
// initializer-list form (json{{"key", value}, ...}) first builds every member as a two-element
// array and then copies it out of the list; the per-GPU objects of a 64-partition MI300X are most
// of a Describe (tests/bench/describe_bench.cc, BENCHMARKS.md "Over the bus"). The keys are the
// caller's, written once each: no member is looked up or replaced.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace rocmtune {

class JsonObject {
 public:
  explicit JsonObject(size_t members) { Members().reserve(members); }
  void Add(std::string key, nlohmann::ordered_json value) { Members().emplace_back(std::move(key), std::move(value)); }
  nlohmann::ordered_json Take() { return std::move(doc_); }

 private:
  nlohmann::ordered_json::object_t& Members() { return doc_.get_ref<nlohmann::ordered_json::object_t&>(); }
  nlohmann::ordered_json doc_ = nlohmann::ordered_json::object();
};

}  // namespace rocmtune
