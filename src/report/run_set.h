// The runs of one `decodeprof report`: how each is named, how they group and which of them
// describe a synthetic workload (docs/user-guide.md, "Reports of many runs").
//
// Names. A run's label is its summary's `name` when no other run of the report has that
// name; otherwise the name after the shortest suffix of the summary's directory that tells
// the runs of that name apart ("30de8260/Llama-3.1-8B-Instruct_greedy",
// "run2/compile_summary_full"); when even the whole directory does not (two files of one
// directory with the same `name`), the summary's path. Every writer of the report names a
// run by its label (RunLabel, markdown_table.h).
//
// Groups. Runs group by model and setting: the model is the summary's `model_type` (no model
// when absent or null); the setting is the tag of the run's name when the name ends in one
// (`<model>_<tag>`, the tag starting with "greedy" or "t" and a digit, as `decodeprof
// profile` names runs: "greedy", "t0.7-p0.95", "greedy-graph"), else "greedy" for a
// temperature of 0 and "t<temperature>" otherwise. Groups come by model name (byte-wise),
// those without a model last; one model's settings in order of their first run.
//
// Synthetic workloads. A summary tells a synthetic workload (a test program with spin
// kernels, a random-weight model cut to a few layers) by:
//   * its `workload` field (a string, optional): "synthetic"; any other value means a real
//     workload, whatever else the summary says;
//   * without that field, by what it lacks: a model (`model_type`, from the bench log or
//     `summarize --model-dir`) and bench results (prompt_tokens and profiled_decode_tok_s),
//     all three stored as null (a summary of an older version without these fields is no
//     evidence either way: not synthetic).
//     Every run of a model that `decodeprof profile` or a bench log measured has them; the
//     repository's recorder and sampling checks (tests/gpu: graph_loop's spin kernels,
//     record_decode.py's random-weight layers) have neither. An engine's trace summarized
//     alone (a torch.profiler trace of vLLM) has neither too, and counts as synthetic until
//     `--model-dir` names its model: a run that names no model does not set a headline.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "src/report/summary_reader.h"

namespace decodeprof::report {

// Sets `label` of every summary as described above.
void AssignRunLabels(std::vector<SummaryFile>& summaries);

// The run's label ("" before AssignRunLabels: then its `name`).
std::string LabelOf(const SummaryFile& summary);

struct RunGroup {
  std::string model;    // model_type; "" without one
  std::string setting;  // "greedy", "t0.7-p0.95", ...
  std::vector<size_t> runs;
};

// The setting of one run (see above).
std::string SettingOf(const SummaryFile& summary);

// The groups of `summaries`, in the order above; runs in the given order.
std::vector<RunGroup> GroupRuns(const std::vector<SummaryFile>& summaries);

// Why the run is a synthetic workload ("summary says workload synthetic", "no model, no
// bench results, a decodeprof-recorded trace"); nullopt for a real workload.
std::optional<std::string> SyntheticEvidence(const SummaryFile& summary);

}  // namespace decodeprof::report
