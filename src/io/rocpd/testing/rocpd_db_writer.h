// Test support for the rocpd importer: writes small rocpd databases (rocprofv3's SQLite output,
// "rocpd schema 3") so that tests build their inputs at run time; no ROCm is needed.
//
// The DDL is rocprofiler-sdk's rocpd_tables.sql as quoted in
// shared/reference/trace-formats-nsys-rocpd.md B4 (the tables B4 only summarizes are written
// from its column lists), with `{{uuid}}` replaced by "_" + the uuid with '-' turned into '_'
// and `{{guid}}` by the uuid itself (B2); then one plain view per table, as rocpd_views.sql
// does (`CREATE VIEW rocpd_X AS SELECT * FROM rocpd_X_<uuid>`), and the metadata rows
// schema_version, uuid and guid (B3). The rows are shaped as generateRocpd.cpp writes them
// (B5, B6, B8, Part F):
//   - every string in rocpd_string, sorted and numbered from 1 ('' first);
//   - rocpd_info_process.id = pid, rocpd_info_thread.id = tid, rocpd_info_agent.id = the
//     agent's absolute index; queue and stream ids are the SDK's handles (stream 0 is
//     "Default Stream"); kernel symbols numbered from 1 in first-seen order;
//   - one rocpd_event per API call, marker, kernel dispatch and memory copy: category_id =
//     the buffer-tracing kind ("HIP_RUNTIME_API_EXT", "MARKER_CORE_RANGE_API",
//     "KERNEL_DISPATCH", "MEMORY_COPY"), stack_id = the internal correlation id (for an API
//     call: its region's id), extdata = {"message": "..."} for markers, else {};
//   - roctx push/pop ranges as rocpd_region rows named roctxThreadRangeA, start/stop ranges
//     named roctxProcessRangeA, marks (roctxMarkA) as rocpd_sample rows on a rocpd_track of
//     their thread whose name is the category.
// Foreign keys are on while writing (rocpd_tables.sql starts with PRAGMA foreign_keys = ON),
// so every reference the rows make must exist; ExecSql opens the file without them, for tests
// that damage it. Depends on base and SQLite only; never linked into decodeprof itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/base/status.h"

namespace decodeprof::io::rocpd_testing {

// A uuid in the writer's v7 shape (B2; Part F: the time field is the process start on
// CLOCK_BOOTTIME in ms).
inline constexpr const char* kDefaultGuid = "0198a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
inline constexpr int64_t kPid = 4242;

struct Agent {
  int64_t id = 1;  // = absolute_index (the agent's node id)
  std::string type = "GPU";
  std::optional<int64_t> absolute_index = 1;  // nullopt: NULL
  std::optional<int64_t> logical_index = 1;
  std::optional<int64_t> type_index = 0;
  std::string name = "gfx1151";
  std::string product_name = "AMD Radeon 8060S";
};

// The default agents: the CPU (node 0) and one GPU (node 1), as on a one-GPU machine, where
// rocprofv3's CSV says "Agent 1" for the GPU.
std::vector<Agent> DefaultAgents();

struct KernelDispatch {
  int64_t id = 0;  // dispatch_id; 0: numbered from 1 in order
  int64_t pid = kPid;
  std::optional<int64_t> tid = kPid;
  int64_t agent_id = 1;
  std::string display_name;  // rocpd_info_kernel_symbol.display_name ("" = NULL)
  std::string kernel_name;   // the symbol ("_Z....kd"; "" = NULL)
  std::string region_name;   // --kernel-rename text ("" unless renamed)
  int64_t queue_id = 1;
  int64_t stream_id = 0;
  int64_t start = 0;
  int64_t end = 0;
  int64_t workgroup[3] = {256, 1, 1};
  int64_t grid[3] = {256, 1, 1};  // work-items (B5)
  // The internal correlation id (rocpd_event.stack_id); nullopt: no event (event_id NULL).
  std::optional<int64_t> correlation;
};

struct MemoryCopy {
  int64_t id = 0;  // 0: numbered from 1 in order
  int64_t pid = kPid;
  std::optional<int64_t> tid = kPid;
  int64_t start = 0;
  int64_t end = 0;
  std::string operation = "MEMORY_COPY_DEVICE_TO_HOST";  // name_id's string
  std::optional<int64_t> src_agent_id = 1;
  std::optional<int64_t> dst_agent_id = 0;
  int64_t size = 8;
  std::optional<int64_t> queue_id;
  std::optional<int64_t> stream_id = 0;
  std::optional<int64_t> correlation;
};

// An API call (HIP, HSA, ...) or a roctx range: a rocpd_region row and its event. `id` is the
// internal correlation id (rocpd_region.id = rocpd_event.stack_id, B5/B6).
struct Region {
  int64_t id = 0;
  int64_t pid = kPid;
  int64_t tid = kPid;
  int64_t start = 0;
  int64_t end = 0;
  std::string name;                              // "hipLaunchKernel", "roctxThreadRangeA", ...
  std::string category = "HIP_RUNTIME_API_EXT";  // the event's category
  std::optional<std::string> message;            // markers: extdata {"message": ...}
  int64_t parent = 0;                            // parent_stack_id
  bool event = true;                             // false: event_id NULL
};

// A roctx push/pop range (roctxRangePush/Pop) of thread `tid`.
Region ThreadRange(int64_t id, std::string message, int64_t start, int64_t end, int64_t tid = kPid);
// A roctx start/stop range (roctxRangeStart/Stop).
Region ProcessRange(int64_t id, std::string message, int64_t start, int64_t end,
                    int64_t tid = kPid);
// A HIP launch call.
Region HipCall(int64_t id, std::string name, int64_t start, int64_t end, int64_t tid = kPid);

// A rocpd_sample: a roctx mark (or an API call that took no time).
struct Sample {
  int64_t id = 0;  // the internal correlation id
  int64_t pid = kPid;
  int64_t tid = kPid;
  int64_t timestamp = 0;
  std::string category = "MARKER_CORE_RANGE_API";
  std::optional<std::string> message;
};

struct RocpdDb {
  std::string guid = kDefaultGuid;
  std::string schema_version = "3";
  bool views = true;     // the plain views of rocpd_views.sql
  bool metadata = true;  // the schema_version / uuid / guid rows
  // Processes and threads beyond those the rows name (which are added by themselves).
  std::vector<int64_t> pids = {kPid};
  std::vector<Agent> agents = DefaultAgents();
  std::vector<KernelDispatch> kernels;
  std::vector<MemoryCopy> copies;
  std::vector<Region> regions;
  std::vector<Sample> samples;
};

// Writes `db` to `path` (replacing a file there). Errors: kIo with SQLite's message (a
// reference the rows make that does not exist fails the foreign-key check).
base::Status WriteRocpdDb(const std::string& path, const RocpdDb& db);

// "_" + the guid with '-' turned into '_': the suffix of every table name (B2).
std::string TableSuffix(const std::string& guid);

// Writes an old rocmProfileData (RPD, schema 2/3) database: the tables rocpd_metadata,
// rocpd_string, rocpd_api, rocpd_op, rocpd_api_ops, rocpd_kernelapi and the view `api`, with
// one kernel launch and one roctx mark (reference Part C).
base::Status WriteOldRpdDb(const std::string& path);

// Runs `sql` on the database at `path`, foreign keys off (for tests that damage a file).
// Errors: kIo.
base::Status ExecSql(const std::string& path, const std::string& sql);

}  // namespace decodeprof::io::rocpd_testing
