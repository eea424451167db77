#!/usr/bin/env python3
"""Writes the raw-mode seeds of the SQLite fuzz targets (tests/fuzz/corpus/native_fuzzer/raw_*,
tests/fuzz/corpus/nsys_sqlite_fuzzer/raw_*, tests/fuzz/corpus/rocpd_fuzzer/raw_*): small
databases (512-byte pages, vacuumed) in the native schema (read from src/native_format/schema.h),
in the nsys 2025.6 / 2022 export shapes the importer reads and in rocpd schema 3 (the tables
and columns the rocpd importer reads, uuid-suffixed behind plain views), plus a truncated copy
of each, an old rocmProfileData file and a file that is no such trace; and
the structure-aware seeds structured_*.bin (pseudo-random bytes from a fixed seed: any bytes
drive the writer).

  tests/fuzz/make_sqlite_seeds.py        (from the repository root; rewrites those seeds)
"""
import os
import random
import re
import sqlite3
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")


def write_db(path, statements, rows):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.execute("PRAGMA page_size = 512")
    db.executescript(statements)
    for sql, values in rows:
        db.executemany(sql, values)
    db.commit()
    db.execute("VACUUM")
    db.close()


def truncate(src, dst, size):
    with open(src, "rb") as f:
        data = f.read(size)
    with open(dst, "wb") as f:
        f.write(data)


def native_seeds(out):
    header = open(os.path.join(ROOT, "src", "native_format", "schema.h")).read()
    schema = re.search(r'R"sql\((.*?)\)sql"', header, re.S).group(1)
    strings = ["void gemv_kernel<float>(float const*, float*, int)", "_Z11rms_norm_f32PKfPfi",
               "cudaLaunchKernel", "decode", "", "step"]
    rows = [
        ("INSERT INTO meta VALUES (?, ?)",
         [("format", "decodeprof-native"), ("format_version", "1"),
          ("clock_domain", "monotonic"), ("recorder", "seed"), ("complete", "1"),
          ("recording_status", "ok")]),
        ("INSERT INTO counters VALUES (?, ?)",
         [("cupti_dropped_records", 2), ("nvtx_unmatched_pops", 1)]),
        ("INSERT INTO strings VALUES (?, ?)", [(i + 1, s) for i, s in enumerate(strings)]),
        ("INSERT INTO devices VALUES (?, ?, ?, ?, ?, ?)", [(0, "NVIDIA H200", 9, 0, 132, 1 << 37)]),
        ("INSERT INTO kernels (start_ns, end_ns, name_id, mangled_id, device, context, stream, "
         "correlation, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, "
         "static_smem, dynamic_smem, graph_id, graph_node_id) "
         "VALUES (?, ?, ?, ?, 0, 1, 7, ?, ?, 1, 1, 128, 1, 1, 32, 0, 0, 0, 0)",
         [(1000, 1500, 1, 1, 11, 64), (1600, 1700, 2, 2, 12, 0), (1600, 1650, 1, 1, 0, 8)]),
        ("INSERT INTO memory_ops (kind, copy_kind, bytes, start_ns, end_ns, device, context, "
         "stream, correlation, graph_id, graph_node_id) VALUES (?, ?, 8, ?, ?, 0, 1, 7, ?, 0, 0)",
         [(1, 1, 900, 950, 10), (2, 0, 1800, 1810, 13)]),
        ("INSERT INTO api_calls (name_id, start_ns, end_ns, thread, correlation, return_value) "
         "VALUES (3, ?, ?, 42, ?, 0)", [(800, 850, 10), (900, 910, 11), (1550, 1560, 12)]),
        ("INSERT INTO ranges (name_id, domain_id, start_ns, end_ns, thread, depth, kind) "
         "VALUES (?, 5, ?, ?, 42, ?, ?)", [(4, 700, 2000, 0, 0), (6, 750, 1900, 1, 0),
                                           (6, 760, 770, -1, 1)]),
        ("INSERT INTO marks (name_id, domain_id, time_ns, thread) VALUES (4, 5, ?, 42)",
         [(720,)]),
    ]
    valid = os.path.join(out, "raw_valid_native.sqlite")
    write_db(valid, schema, rows)
    truncate(valid, os.path.join(out, "raw_truncated_native.sqlite"), 1536)
    write_db(os.path.join(out, "raw_not_native.sqlite"),
             "CREATE TABLE meta(key TEXT, value TEXT); CREATE TABLE kernels(id INTEGER);",
             [("INSERT INTO meta VALUES (?, ?)", [("format", "something-else")])])


NSYS_COMMON = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL, mangledName INTEGER, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
"""

PID = (1 << 48) | (100 << 24)


def nsys_rows(text_ids):
    strings = ["_Z11rms_norm_f32PKfPfi", "rms_norm", "cudaLaunchKernel_v7000", "decode",
               "cuLaunchKernel"]
    nvtx = ("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId) "
            "VALUES (?, ?, ?, ?, ?, ?)") if text_ids else (
            "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) "
            "VALUES (?, ?, ?, ?, ?)")
    nvtx_rows = [(100, 5000, 59, None if text_ids else "decode", PID | 100),
                 (150, 4000, 59, "step", PID | 100), (200, None, 60, "open", PID | 101),
                 (300, None, 34, "mark", PID | 100)]
    if text_ids:
        nvtx_rows = [r + ((4,) if i == 0 else (None,)) for i, r in enumerate(nvtx_rows)]
    return [
        ("INSERT INTO StringIds VALUES (?, ?)", [(i + 1, s) for i, s in enumerate(strings)]),
        ("INSERT INTO TARGET_INFO_GPU VALUES (?, ?, ?)", [(0, 0, "NVIDIA H200")]),
        ("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, 7, ?, ?, ?, ?, ?, ?, 1, 1)",
         [(1000, 1500, 11, PID, 1, 2, 1, 64), (1600, 1700, 12, PID, 2, 2, None, 0)]),
        ("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 1, 7, ?, ?, 8, ?)",
         [(900, 950, 10, PID, 1), (960, 970, None, PID, 8)]),
        ("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?, ?, 0, 1, 7, ?, ?, 0, 8)",
         [(1800, 1810, 13, PID)]),
        ("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, ?, ?, 0, NULL)",
         [(800, 850, 0, PID | 100, 10, 3), (900, 910, 1, PID | 100, 11, 5),
          (950, 960, 0, PID | 100, 12, 3)]),
        (nvtx, nvtx_rows),
    ]


def nsys_seeds(out):
    schema_2025 = NSYS_COMMON + """
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT,
  systemClockNs INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, eventId INTEGER NOT NULL PRIMARY KEY);
"""
    rows = nsys_rows(text_ids=True) + [
        ("INSERT INTO META_DATA_EXPORT VALUES (?, ?)",
         [("EXPORT_PRODUCT_VERSION", "2025.6.1.190"), ("EXPORT_SCHEMA_VERSION", "3.24.7")]),
        ("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, ?, ?, ?)",
         [(1775078550000000000, "2026-04-01T21:22:30", "2026-04-01T14:22:30",
           7150000000000000)]),
    ]
    valid = os.path.join(out, "raw_valid_nsys_2025.sqlite")
    write_db(valid, schema_2025, rows)
    truncate(valid, os.path.join(out, "raw_truncated_nsys_2025.sqlite"), 2048)
    schema_2022 = NSYS_COMMON + """
CREATE TABLE EXPORT_META_DATA (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, domainId INTEGER);
"""
    rows = nsys_rows(text_ids=False) + [
        ("INSERT INTO EXPORT_META_DATA VALUES (?, ?)",
         [("EXPORT_PRODUCT_VERSION", "2022.2.1.31"), ("EXPORT_SCHEMA_VERSION", "2.9.1")]),
        ("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, ?, ?)",
         [(1775078550000000000, "2026-04-01T21:22:30", "2026-04-01T14:22:30")]),
    ]
    write_db(os.path.join(out, "raw_valid_nsys_2022.sqlite"), schema_2022, rows)
    write_db(os.path.join(out, "raw_nvprof_export.sqlite"),
             "CREATE TABLE StringTable (_id_ INTEGER PRIMARY KEY, value TEXT);", [])
    with open(os.path.join(out, "raw_report.nsys-rep"), "wb") as f:
        f.write(b"NVIDIA Tegra Profiler Report\x00\x01\x02")


ROCPD_UUID = "_0198a1b2_c3d4_7e5f_8a9b_0c1d2e3f4a5b"
ROCPD_GUID = "0198a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
# The tables and columns the rocpd importer reads (src/io/rocpd/rocpd_schema.cc), in the DDL's
# types (reference B4; the full DDL is src/io/rocpd/testing/rocpd_ddl.h).
ROCPD_TABLES = {
    "rocpd_metadata": '"id" INTEGER PRIMARY KEY, "tag" TEXT NOT NULL, "value" TEXT NOT NULL',
    "rocpd_string": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "string" TEXT NOT NULL',
    "rocpd_info_thread": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "nid" INTEGER, '
                         '"pid" INTEGER NOT NULL, "tid" INTEGER NOT NULL',
    "rocpd_info_agent": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "type" TEXT, '
                        '"absolute_index" INTEGER, "logical_index" INTEGER, "name" TEXT, '
                        '"product_name" TEXT',
    "rocpd_info_kernel_symbol": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, '
                                '"kernel_name" TEXT, "display_name" TEXT',
    "rocpd_track": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "tid" INTEGER, '
                   '"name_id" INTEGER',
    "rocpd_event": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "category_id" INTEGER, '
                   '"stack_id" INTEGER, "extdata" JSONB NOT NULL',
    "rocpd_region": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "pid" INTEGER NOT NULL, '
                    '"tid" INTEGER NOT NULL, "start" BIGINT NOT NULL, "end" BIGINT NOT NULL, '
                    '"name_id" INTEGER NOT NULL, "event_id" INTEGER',
    "rocpd_sample": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "track_id" INTEGER NOT NULL, '
                    '"timestamp" BIGINT NOT NULL, "event_id" INTEGER',
    "rocpd_kernel_dispatch": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, '
                             '"pid" INTEGER NOT NULL, "agent_id" INTEGER NOT NULL, '
                             '"kernel_id" INTEGER NOT NULL, "queue_id" INTEGER NOT NULL, '
                             '"stream_id" INTEGER NOT NULL, "start" BIGINT NOT NULL, '
                             '"end" BIGINT NOT NULL, "grid_size_x" INTEGER NOT NULL, '
                             '"grid_size_y" INTEGER NOT NULL, "grid_size_z" INTEGER NOT NULL, '
                             '"region_name_id" INTEGER, "event_id" INTEGER',
    "rocpd_memory_copy": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "pid" INTEGER NOT NULL, '
                         '"start" BIGINT NOT NULL, "end" BIGINT NOT NULL, '
                         '"name_id" INTEGER NOT NULL, "dst_agent_id" INTEGER, '
                         '"src_agent_id" INTEGER, "queue_id" INTEGER, "stream_id" INTEGER, '
                         '"event_id" INTEGER',
}


def rocpd_seeds(out):
    schema = ""
    for table, columns in ROCPD_TABLES.items():
        schema += 'CREATE TABLE "%s%s" (%s);\n' % (table, ROCPD_UUID, columns)
        schema += 'CREATE VIEW "%s" AS SELECT * FROM "%s%s";\n' % (table, table, ROCPD_UUID)
    g = ROCPD_GUID
    strings = ["", "HIP_RUNTIME_API_EXT", "KERNEL_DISPATCH", "MARKER_CORE_RANGE_API",
               "MEMORY_COPY", "MEMORY_COPY_DEVICE_TO_HOST", "hipLaunchKernel",
               "roctxThreadRangeA", "roctxProcessRangeA"]
    sid = {s: i + 1 for i, s in enumerate(strings)}

    def t(name):
        return '"%s%s"' % (name, ROCPD_UUID)
    rows = [
        ("INSERT INTO %s VALUES (?, ?, ?)" % t("rocpd_metadata"),
         [(1, "schema_version", "3"), (2, "uuid", ROCPD_UUID), (3, "guid", g)]),
        ("INSERT INTO %s VALUES (?, ?, ?)" % t("rocpd_string"),
         [(i, g, s) for s, i in sid.items()]),
        ("INSERT INTO %s VALUES (?, ?, 1, 4242, ?)" % t("rocpd_info_thread"),
         [(4242, g, 4242), (4243, g, 4243)]),
        ("INSERT INTO %s VALUES (?, ?, ?, ?, ?, ?, ?)" % t("rocpd_info_agent"),
         [(0, g, "CPU", 0, 0, "cpu", "AMD Ryzen"), (1, g, "GPU", 1, 1, "gfx1151",
                                                     "AMD Radeon 8060S")]),
        ("INSERT INTO %s VALUES (?, ?, ?, ?)" % t("rocpd_info_kernel_symbol"),
         [(1, g, "_Z11rms_norm_f32PKfPfi.kd", "rms_norm_f32(float const*, float*, int)"),
          (2, g, "_Z4gemvPKfPf.kd", None)]),
        ("INSERT INTO %s VALUES (?, ?, ?, ?)" % t("rocpd_track"),
         [(1, g, 4242, sid["MARKER_CORE_RANGE_API"])]),
        ("INSERT INTO %s VALUES (?, ?, ?, ?, ?)" % t("rocpd_event"),
         [(1, g, sid["MARKER_CORE_RANGE_API"], 1, '{"message":"decodeprof:decode"}'),
          (2, g, sid["MARKER_CORE_RANGE_API"], 2, '{"message":"decodeprof:step"}'),
          (3, g, sid["HIP_RUNTIME_API_EXT"], 10, "{}"),
          (4, g, sid["KERNEL_DISPATCH"], 10, "{}"),
          (5, g, sid["KERNEL_DISPATCH"], 11, "{}"),
          (6, g, sid["MEMORY_COPY"], 12, "{}"),
          (7, g, sid["MARKER_CORE_RANGE_API"], 13, '{"message":"tick"}'),
          (8, g, sid["MARKER_CORE_RANGE_API"], 3, '{"message":"async"}')]),
        ("INSERT INTO %s VALUES (?, ?, 4242, ?, ?, ?, ?, ?)" % t("rocpd_region"),
         [(1, g, 4242, 100, 5000, sid["roctxThreadRangeA"], 1),
          (2, g, 4242, 150, 4000, sid["roctxThreadRangeA"], 2),
          (3, g, 4243, 200, 300, sid["roctxProcessRangeA"], 8),
          (10, g, 4242, 800, 850, sid["hipLaunchKernel"], 3)]),
        ("INSERT INTO %s VALUES (?, ?, 1, ?, ?)" % t("rocpd_sample"), [(13, g, 900, 7)]),
        ("INSERT INTO %s VALUES (?, ?, 4242, 1, ?, 1, 0, ?, ?, 64, 1, 1, 1, ?)" %
         t("rocpd_kernel_dispatch"),
         [(1, g, 1, 1000, 1500, 4), (2, g, 2, 1600, 1700, 5)]),
        ("INSERT INTO %s VALUES (?, ?, 4242, ?, ?, ?, 0, 1, NULL, 0, ?)" % t("rocpd_memory_copy"),
         [(1, g, 1800, 1810, sid["MEMORY_COPY_DEVICE_TO_HOST"], 6)]),
    ]
    valid = os.path.join(out, "raw_valid_rocpd.db")
    write_db(valid, schema, rows)
    truncate(valid, os.path.join(out, "raw_truncated_rocpd.db"), 3072)
    write_db(os.path.join(out, "raw_old_rpd.db"),
             'CREATE TABLE "rocpd_metadata" ("id" integer PRIMARY KEY, "tag" varchar(4096), '
             '"value" varchar(4096)); CREATE TABLE "rocpd_api" ("id" integer PRIMARY KEY); '
             'CREATE TABLE "rocpd_op" ("id" integer PRIMARY KEY);',
             [('INSERT INTO "rocpd_metadata" VALUES (?, ?, ?)', [(1, "schema_version", "2")])])


def structured_seeds(out, seed):
    rng = random.Random(seed)
    for size in (64, 256, 1024):
        with open(os.path.join(out, "structured_%d.bin" % size), "wb") as f:
            f.write(bytes(rng.randrange(256) for _ in range(size)))


def main():
    for target, seed in (("native_fuzzer", 1), ("nsys_sqlite_fuzzer", 2), ("rocpd_fuzzer", 3)):
        out = os.path.join(CORPUS, target)
        os.makedirs(out, exist_ok=True)
        structured_seeds(out, seed)
    native_seeds(os.path.join(CORPUS, "native_fuzzer"))
    nsys_seeds(os.path.join(CORPUS, "nsys_sqlite_fuzzer"))
    rocpd_seeds(os.path.join(CORPUS, "rocpd_fuzzer"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
