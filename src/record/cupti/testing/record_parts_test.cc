// Unit tests of the CUPTI recorder's parts: configuration, buffer pool, NVTX collector,
// record translation (over fake activity buffers) and the clock offset.
#include <stdlib.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "src/io/native/native_importer.h"
#include "src/record/cupti/buffer_pool.h"
#include "src/record/cupti/clock.h"
#include "src/record/cupti/config.h"
#include "src/record/cupti/nvtx_collector.h"
#include "src/record/cupti/record_translator.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::record::cupti {
namespace {

namespace nf = native_format;

GetEnvFn Env(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

TEST(ConfigTest, OffWithoutAnOutput) {
  auto config = ReadRecorderConfig(Env({}), 100, nullptr);
  ASSERT_TRUE(config.ok());
  EXPECT_FALSE(config->enabled);
}

TEST(ConfigTest, ReadsEveryValue) {
  auto config = ReadRecorderConfig(Env({{"DECODEPROF_RECORD_OUTPUT", "/t/x.sqlite"},
                                        {"DECODEPROF_RECORD_ROOT_PID", "100"},
                                        {"DECODEPROF_RECORD_BUFFER_KB", "1024"},
                                        {"DECODEPROF_RECORD_MAX_BUFFERS", "8"},
                                        {"DECODEPROF_RECORD_COMMIT_MS", "50"},
                                        {"DECODEPROF_RECORD_FLUSH_MS", "0"},
                                        {"DECODEPROF_RECORD_API", "0"},
                                        {"DECODEPROF_RECORD_DISCARD", "1"},
                                        {"DECODEPROF_CUPTI_LIB", "/c/libcupti.so"}}),
                                   100, nullptr);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_TRUE(config->enabled);
  EXPECT_EQ(config->output, "/t/x.sqlite");
  EXPECT_EQ(config->buffer_bytes, 1024u << 10);
  EXPECT_EQ(config->max_buffers, 8u);
  EXPECT_EQ(config->commit_ms, 50u);
  EXPECT_EQ(config->flush_ms, 0u);
  EXPECT_FALSE(config->api_calls);
  EXPECT_TRUE(config->discard);
  EXPECT_TRUE(config->memory_ops);
  EXPECT_EQ(config->cupti_lib, "/c/libcupti.so");
}

TEST(ConfigTest, ChildrenAreOffUnlessFollowed) {
  auto not_followed = ReadRecorderConfig(
      Env({{"DECODEPROF_RECORD_OUTPUT", "/t/x.sqlite"}, {"DECODEPROF_RECORD_ROOT_PID", "100"}}),
      101, nullptr);
  ASSERT_TRUE(not_followed.ok());
  EXPECT_FALSE(not_followed->enabled);
  auto followed = ReadRecorderConfig(Env({{"DECODEPROF_RECORD_OUTPUT", "/t/x.sqlite"},
                                          {"DECODEPROF_RECORD_ROOT_PID", "100"},
                                          {"DECODEPROF_RECORD_FOLLOW_FORK", "1"}}),
                                     101, nullptr);
  ASSERT_TRUE(followed.ok());
  EXPECT_TRUE(followed->enabled);
  EXPECT_EQ(followed->output, "/t/x.101.sqlite");
  EXPECT_EQ(ChildOutputPath("/t/trace", 7), "/t/trace.7");
}

TEST(ConfigTest, BadValuesAreConfigErrorsNamingTheVariable) {
  std::string output;
  auto config = ReadRecorderConfig(
      Env({{"DECODEPROF_RECORD_OUTPUT", "/t/x.sqlite"}, {"DECODEPROF_RECORD_BUFFER_KB", "4k"}}),
      100, &output);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().kind(), base::ErrorKind::kConfig);
  EXPECT_EQ(config.status().where(), "DECODEPROF_RECORD_BUFFER_KB");
  EXPECT_EQ(output, "/t/x.sqlite");  // known: the caller can say why in the file
  auto bad_switch = ReadRecorderConfig(
      Env({{"DECODEPROF_RECORD_OUTPUT", "/t/x"}, {"DECODEPROF_RECORD_API", "yes"}}), 1, nullptr);
  EXPECT_FALSE(bad_switch.ok());
  auto bad_clock = ReadRecorderConfig(
      Env({{"DECODEPROF_RECORD_OUTPUT", "/t/x"}, {"DECODEPROF_RECORD_CLOCK", "realtime"}}), 1,
      nullptr);
  EXPECT_EQ(bad_clock.status().where(), "DECODEPROF_RECORD_CLOCK");
  auto offset = ReadRecorderConfig(
      Env({{"DECODEPROF_RECORD_OUTPUT", "/t/x"}, {"DECODEPROF_RECORD_CLOCK", "offset"}}), 1,
      nullptr);
  ASSERT_TRUE(offset.ok());
  EXPECT_EQ(offset->clock, RecorderConfig::Clock::kOffset);
  auto too_small = ReadRecorderConfig(
      Env({{"DECODEPROF_RECORD_OUTPUT", "/t/x"}, {"DECODEPROF_RECORD_MAX_BUFFERS", "1"}}), 1,
      nullptr);
  EXPECT_FALSE(too_small.ok());
}

using Meta = std::vector<std::pair<std::string, std::string>>;

TEST(JobMetaTest, TorchrunRankWorldSizeRunAndDevices) {
  const Meta meta = JobMeta(Env({{"RANK", "1"},
                                 {"WORLD_SIZE", "2"},
                                 {"LOCAL_RANK", "1"},
                                 {"SLURM_PROCID", "7"},  // torchrun's variables win
                                 {"DECODEPROF_RECORD_ROOT_PID", "4242"},
                                 {"DECODEPROF_RECORD_OUTPUT", "/t/tp.sqlite"},
                                 {"CUDA_VISIBLE_DEVICES", "0,1"}}));
  EXPECT_EQ(meta, (Meta{{"rank", "1"},
                        {"world_size", "2"},
                        {"local_rank", "1"},
                        {"rank_source", "RANK"},
                        {"run_id", "4242:/t/tp.sqlite"},
                        {"cuda_visible_devices", "0,1"}}));
}

TEST(JobMetaTest, OpenMpiAndSlurmWhenTorchrunSetsNothing) {
  EXPECT_EQ(JobMeta(Env({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"}})),
            (Meta{{"rank", "3"}, {"world_size", "4"}, {"rank_source", "OMPI_COMM_WORLD_RANK"}}));
  EXPECT_EQ(JobMeta(Env({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}, {"SLURM_LOCALID", "0"}})),
            (Meta{{"rank", "0"},
                  {"world_size", "1"},
                  {"local_rank", "0"},
                  {"rank_source", "SLURM_PROCID"}}));
  EXPECT_TRUE(JobMeta(Env({})).empty());
}

TEST(JobMetaTest, BadValuesAreNamedNotRecorded) {
  EXPECT_EQ(JobMeta(Env({{"RANK", "one"}, {"WORLD_SIZE", "2"}})),
            (Meta{{"rank_problem", "RANK='one' is not a rank or size"}}));
  EXPECT_EQ(JobMeta(Env({{"RANK", "2"}, {"WORLD_SIZE", "2"}})),
            (Meta{{"rank_problem", "RANK 2 is not below WORLD_SIZE 2"}}));
  // A bad world size alone still leaves the rank.
  EXPECT_EQ(JobMeta(Env({{"RANK", "0"}, {"WORLD_SIZE", "-1"}})),
            (Meta{{"rank", "0"},
                  {"rank_source", "RANK"},
                  {"rank_problem", "WORLD_SIZE='-1' is not a rank or size"}}));
}

TEST(BufferPoolTest, RefusesPastTheCapAndReusesReleasedBuffers) {
  BufferPool pool(1024, 2);
  uint8_t* a = pool.Acquire();
  uint8_t* b = pool.Acquire();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % BufferPool::kAlignment, 0u);
  EXPECT_EQ(pool.Acquire(), nullptr);
  EXPECT_EQ(pool.refusals(), 1);
  pool.Release(a);
  EXPECT_EQ(pool.Acquire(), a);
  EXPECT_EQ(pool.outstanding(), 2u);
  // Buffers out with CUPTI belong to it until completion; hand them back like the drain does.
  pool.Release(a);
  pool.Release(b);
  EXPECT_EQ(pool.outstanding(), 0u);
}

TEST(NvtxCollectorTest, NestsPerThreadAndDomain) {
  NvtxCollector c(100);
  const NvtxDomain def = NvtxCollector::DefaultDomain();
  const NvtxDomain other = c.Domain("other");
  EXPECT_EQ(c.Domain("other"), other);
  EXPECT_EQ(c.Push(def, "a", 10, 1), 0);
  EXPECT_EQ(c.Push(other, "x", 11, 1), 0);  // another domain nests on its own
  EXPECT_EQ(c.Push(def, "b", 12, 1), 1);
  EXPECT_EQ(c.Push(def, "t2", 13, 2), 0);  // another thread
  EXPECT_EQ(c.Pop(def, 20, 1), 1);         // closes "b"
  EXPECT_EQ(c.Pop(other, 21, 1), 0);       // closes "x"
  EXPECT_EQ(c.Pop(def, 22, 1), 0);         // closes "a"
  EXPECT_EQ(c.Pop(def, 23, 1), -1);        // nothing open
  const uint64_t id = c.Start(def, "io", 30, 1);
  c.End(id, 40);
  c.End(id, 41);  // ended twice
  c.Mark(other, "m", 50, 3);
  std::vector<NvtxRangeEvent> ranges;
  std::vector<NvtxMarkEvent> marks;
  c.Take(&ranges, &marks);
  ASSERT_EQ(ranges.size(), 4u);
  EXPECT_EQ(ranges[0].name, "b");
  EXPECT_EQ(ranges[0].depth, 1);
  EXPECT_EQ(ranges[0].start_ns, 12);
  EXPECT_EQ(ranges[0].end_ns, 20);
  EXPECT_EQ(ranges[2].name, "a");
  EXPECT_EQ(ranges[3].kind, nf::RangeKind::kStartEnd);
  EXPECT_EQ(ranges[3].depth, -1);
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(*marks[0].domain, "other");
  const NvtxCounts counts = c.counts();
  EXPECT_EQ(counts.unmatched_pops, 2);
  EXPECT_EQ(counts.unended, 1);  // "t2" on thread 2
  const std::string* registered = c.RegisterString("registered");
  EXPECT_EQ(*registered, "registered");
  EXPECT_NE(c.RegisterString("registered"), nullptr);
  EXPECT_EQ(*registered, "registered");  // still valid after more registrations
  c.Disable();
  EXPECT_EQ(c.Push(def, "late", 60, 1), -1);
}

TEST(NvtxCollectorTest, DropsAndCountsPastTheQueueCap) {
  NvtxCollector c(2);
  for (int i = 0; i < 5; ++i) c.Mark(NvtxCollector::DefaultDomain(), "m", i, 1);
  EXPECT_EQ(c.counts().dropped, 3);
  std::vector<NvtxRangeEvent> ranges;
  std::vector<NvtxMarkEvent> marks;
  c.Take(&ranges, &marks);
  EXPECT_EQ(marks.size(), 2u);
}

TEST(NvtxCollectorTest, ManyThreadsAtOnce) {
  NvtxCollector c(1 << 20);
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < 16; ++t) {
    threads.emplace_back([&c, t] {
      for (int i = 0; i < 1000; ++i) {
        c.Push(NvtxCollector::DefaultDomain(), "r", i, t);
        c.Pop(NvtxCollector::DefaultDomain(), i + 1, t);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::vector<NvtxRangeEvent> ranges;
  std::vector<NvtxMarkEvent> marks;
  c.Take(&ranges, &marks);
  EXPECT_EQ(ranges.size(), 16000u);
  EXPECT_EQ(c.counts().unmatched_pops, 0);
}

// A fake activity buffer: records of known sizes laid end to end, walked like CUPTI does.
size_t SizeOf(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_DEVICE:
      return sizeof(CUpti_ActivityDevice5);
    default:
      return sizeof(CUpti_Activity);
  }
}

CUptiResult FakeNext(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
  uint8_t* next =
      *record == nullptr ? buffer : reinterpret_cast<uint8_t*>(*record) + SizeOf((*record)->kind);
  if (next >= buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  if (reinterpret_cast<CUpti_Activity*>(next)->kind == CUPTI_ACTIVITY_KIND_INVALID) {
    return CUPTI_ERROR_INVALID_KIND;
  }
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}

class FakeBuffer {
 public:
  template <typename T>
  void Add(const T& record) {
    const size_t at = bytes_.size();
    bytes_.resize(at + SizeOf(record.kind));
    std::memcpy(bytes_.data() + at, &record, sizeof record);
  }
  uint8_t* data() { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
};

class CollectSink : public trace::DispatchSink {
 public:
  void Add(const trace::Dispatch& d) override { dispatches.push_back(d); }
  trace::DispatchVector dispatches;
};

TEST(RecordTranslatorTest, WritesKernelsMemoryOpsApiCallsAndDevices) {
  const decodeprof::testing::TempDir dir("translator_");
  const std::string path = dir.Path("t.sqlite");
  auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
  ASSERT_TRUE(writer.ok());

  FakeBuffer buffer;
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 1000;
  k.end = 3000;
  k.gridX = 4;
  k.gridY = 2;
  k.gridZ = 1;
  k.blockX = 256;
  k.streamId = 13;
  k.correlationId = 5;
  k.graphId = 2;
  k.graphNodeId = 77;
  k.registersPerThread = 32;
  k.name = "_ZN5flash9fwd_splitILi128EEEvPf";
  buffer.Add(k);
  k.start = 4000;
  k.end = 4500;
  buffer.Add(k);  // the same name again: one demangling, same ids
  k.start = 0;    // CUPTI could not time it: not a device used
  k.deviceId = 3;
  buffer.Add(k);
  k.deviceId = 0;
  CUpti_ActivityMemcpy6 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = 2;
  m.bytes = 8;
  m.start = 5000;
  m.end = 5100;
  buffer.Add(m);
  CUpti_ActivityMemset4 s{};
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.bytes = 4;
  s.start = 900;
  s.end = 950;
  buffer.Add(s);
  CUpti_ActivityAPI api{};
  api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  api.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000;
  api.start = 800;
  api.end = 850;
  api.threadId = 4242;
  api.correlationId = 5;
  buffer.Add(api);
  CUpti_ActivityDevice5 dev{};
  dev.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  dev.name = "NVIDIA H200";
  dev.computeCapabilityMajor = 9;
  dev.numMultiprocessors = 132;
  buffer.Add(dev);
  CUpti_Activity unknown{};
  unknown.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  buffer.Add(unknown);

  RecordTranslator translator(**writer, &FakeNext, /*offset_ns=*/100);
  translator.Translate(buffer.data(), buffer.size());
  const TranslateCounts& counts = translator.counts();
  EXPECT_EQ(counts.kernels, 2);
  EXPECT_EQ(counts.incomplete, 1);
  EXPECT_EQ(counts.memory_ops, 2);
  EXPECT_EQ(counts.api_calls, 1);
  EXPECT_EQ(counts.devices, 1);
  EXPECT_EQ(translator.KernelDevices(), "0");
  EXPECT_EQ(counts.unknown, 1);
  EXPECT_EQ(counts.translation_failures, 0);

  // A walk that ends in an error is a translation failure.
  FakeBuffer broken;
  broken.Add(k);
  CUpti_Activity invalid{};
  broken.Add(invalid);
  translator.Translate(broken.data(), broken.size());
  EXPECT_EQ(translator.counts().translation_failures, 1);
  ASSERT_TRUE((*writer)->Close().ok());

  trace::StringPool names;
  CollectSink sink;
  auto imported = io::ImportNative(path, names, sink, {.memory_ops_as_dispatches = true});
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  ASSERT_EQ(sink.dispatches.size(), 4u);
  EXPECT_EQ(names.Get(sink.dispatches[0].name), "[CUDA memset]");
  EXPECT_EQ(sink.dispatches[0].start, 1000);  // 900 + offset
  EXPECT_EQ(names.Get(sink.dispatches[1].name), "void flash::fwd_split<128>(float*)");
  EXPECT_EQ(sink.dispatches[1].grid, 8);
  EXPECT_EQ(sink.dispatches[1].end, 3100);
  EXPECT_EQ(names.Get(sink.dispatches[3].name), "[CUDA memcpy Device-to-Host]");
  EXPECT_EQ(imported->api_calls, 1);
}

// After cuptiFinalize a fresh CUPTI may start its correlation ids over (recorder.h,
// "Detaching"): ids that go back past the previous attachment's are moved past every id
// written; ids that carry on are kept.
TEST(RecordTranslatorTest, CorrelationIdsStayUniqueAcrossAttachments) {
  const decodeprof::testing::TempDir dir("epochs_");
  const std::string path = dir.Path("t.sqlite");
  auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
  ASSERT_TRUE(writer.ok());
  RecordTranslator translator(**writer, &FakeNext, 0);
  auto kernels = [&](std::initializer_list<uint32_t> ids, uint64_t at) {
    FakeBuffer buffer;
    for (const uint32_t id : ids) {
      CUpti_ActivityKernel10 k{};
      k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
      k.start = at;
      k.end = at + 10;
      k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
      k.correlationId = id;
      k.name = "k";
      buffer.Add(k);
      at += 100;
    }
    translator.Translate(buffer.data(), buffer.size());
  };
  kernels({1, 2, 3}, 1000);
  translator.SetEpoch(1);
  kernels({1, 2}, 2000);   // started over: 4, 5
  translator.SetEpoch(1);  // the same attachment: nothing changes
  kernels({3}, 2500);      // 6
  translator.SetEpoch(2);
  kernels({10}, 3000);  // carried on: kept as it is (+ the base of 3: 13)
  translator.SetEpoch(3);
  kernels({0}, 4000);  // none stays none
  ASSERT_TRUE((*writer)->Close().ok());
  trace::StringPool names;
  CollectSink sink;
  ASSERT_TRUE(io::ImportNative(path, names, sink).ok());
  std::vector<uint64_t> ids;
  for (const trace::Dispatch& d : sink.dispatches) ids.push_back(d.correlation);
  EXPECT_EQ(ids, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 13, 0}));
}

TEST(RecordTranslatorTest, NamesTheLaunchApis) {
  EXPECT_EQ(RecordTranslator::ApiName(CUPTI_ACTIVITY_KIND_RUNTIME,
                                      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000),
            "cudaLaunchKernel");
  EXPECT_EQ(
      RecordTranslator::ApiName(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch),
      "cuGraphLaunch");
  EXPECT_EQ(RecordTranslator::ApiName(CUPTI_ACTIVITY_KIND_DRIVER, 1), "driver api 1");
}

TEST(ClockTest, OffsetOfAShiftedClockIsFound) {
  const int64_t offset = MeasureOffset([] { return MonotonicNs() - 123456789; });
  EXPECT_NEAR(static_cast<double>(offset), 123456789.0, 50000.0);
}

}  // namespace
}  // namespace decodeprof::record::cupti
