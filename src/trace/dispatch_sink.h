// Importers stream dispatches into a sink, in file order, so that a consumer can keep only
// what it needs (the decode window) and memory stays bounded by that, not by the file.
#pragma once
#include <cstddef>
#include <span>

#include "src/trace/dispatch.h"

namespace decodeprof::trace {

class DispatchSink {
 public:
  virtual ~DispatchSink() = default;
  // Called once per dispatch row, in file order. `d.name` is already interned.
  virtual void Add(const Dispatch& d) = 0;
  // Several dispatch rows at once, in file order: the same as Add for each, which is what it
  // does unless a sink takes a block faster (an importer that reads in parts hands them on so).
  virtual void AddAll(std::span<const Dispatch> dispatches) {
    for (const Dispatch& d : dispatches) Add(d);
  }
  // For an importer that writes many dispatches in place, on several threads: room for `n`
  // more at the end of what the sink keeps, or an empty span when the sink does not keep them
  // in one place (the importer then hands them on with AddAll). The importer fills a prefix of
  // the room and hands it on with AddFilled before anything else reaches the sink.
  virtual std::span<Dispatch> Room(size_t /*n*/) { return {}; }
  // The first dispatches of the last Room, filled, in file order: the same as Add for each.
  // The rest of the room is given back.
  virtual void AddFilled(std::span<const Dispatch> /*filled*/) {}
  // A hint from an importer that knows how many dispatches are coming (an upper bound): a
  // sink that keeps them all can make room at once. Ignoring it is always correct.
  virtual void Expect(size_t /*dispatches*/) {}
  // From an importer that reads a file in parts, each into a sink of its own on some thread:
  // the part is read, and nothing more reaches this sink until the parts are merged. A sink
  // may let go of what it will not touch again before then.
  virtual void Done() {}
};

// Drops every dispatch (an import that wants everything but them).
class NullSink final : public DispatchSink {
 public:
  void Add(const Dispatch&) override {}
};

}  // namespace decodeprof::trace
