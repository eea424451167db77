// A sink that keeps every record of one kind in memory, in order: the store of a window that
// is the whole trace.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <thread>
#include <type_traits>
#include <vector>

#include "src/base/for_overwrite.h"
#include "src/base/large_pages.h"
#include "src/base/spill.h"
#include "src/trace/dispatch.h"

namespace decodeprof::trace {

// Every record, in memory. The room an importer asks for to fill records in place on several
// threads (DispatchSink::Room) has its pages faulted in on several threads first
// (base::Prefault), so that the calling thread does not stop to have each one cleared.
// Sink: DispatchSink (Record Dispatch) or LaunchSink (Record ApiCall). The dispatches' store
// (DispatchVector) makes the room without writing it first.
template <typename Record>
struct StoreOf {
  using type = std::vector<Record>;
};
template <>
struct StoreOf<Dispatch> {
  using type = DispatchVector;
};
template <typename Record, typename Sink>
class RecordVector final : public Sink {
 public:
  using Store = typename StoreOf<Record>::type;

  // Where the records are in files (base/spill.h), what one thread appends goes from the
  // process as it goes.
  void Add(const Record& r) override {
    records.push_back(r);
    appended_.Appended(records.data(), records.size());
  }
  void AddAll(std::span<const Record> block) override {
    records.insert(records.end(), block.begin(), block.end());
    appended_.Appended(records.data(), records.size());
  }
  void Expect(size_t n) override { base::ReserveLarge(records, n); }
  std::span<Record> Room(size_t n) override {
    room_at_ = records.size();
    base::ReserveLarge(records, room_at_ + n);
    {
      const unsigned cpus = std::thread::hardware_concurrency();
      const base::Prefault pages(
          records.data() + room_at_, n * sizeof(Record),
          static_cast<int>(std::clamp<unsigned>(cpus, 1, base::kPrefaultThreads)));
    }
    if constexpr (std::is_same_v<Store, DispatchVector>) {
      base::ResizeForOverwrite(records, room_at_ + n);
    } else {
      base::ResizeLettingGo(records, room_at_ + n);  // the zeros, let go where in a file
    }
    room_open_ = true;
    return {records.data() + room_at_, n};
  }
  void AddFilled(std::span<const Record> filled) override {
    if (!room_open_) return;
    records.resize(room_at_ + filled.size());
    room_open_ = false;
    appended_ = base::spill::AppendReleaseBehind<Record>(records.data(), records.size());
  }

  Store records;

 private:
  size_t room_at_ = 0;
  bool room_open_ = false;
  base::spill::AppendReleaseBehind<Record> appended_{nullptr, 0};
};
}  // namespace decodeprof::trace
