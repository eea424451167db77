#include "src/pipeline/kernels_run.h"

#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "src/io/importer_registry.h"
#include "src/packs/default_pack.h"
#include "src/packs/pack_loader.h"
#include "src/pipeline/trace_source.h"

namespace decodeprof::pipeline {

base::StatusOr<KernelsResult> RunKernels(const KernelsRequest& request) {
  KernelsResult result;
  DP_ASSIGN_OR_RETURN(const io::Importer* importer,
                      io::ResolveImporter(request.trace.path, request.trace.format));
  result.format = std::string(importer->name());
  // Configuration first: a bad --pack must not cost a pass over a large trace. Without
  // --pack the pack is chosen from the kernel names the census counted, after the import.
  std::unique_ptr<analysis::Pack> pack;
  if (!request.pack.empty()) {
    DP_ASSIGN_OR_RETURN(pack, packs::LoadPack(request.pack));
  }

  std::optional<analysis::StartRange> range;
  if (request.window.kind == WindowSpec::Kind::kRange) {
    range = analysis::StartRange{request.window.start, request.window.end};
  }
  trace::StringPool names;
  analysis::KernelCensus census(range);
  trace::ImportedTrace info;
  if (request.window.kind == WindowSpec::Kind::kDecode) {
    // The decode window as summarize finds it (marks, ranges, or the loop in the dispatches).
    TraceRequest decode = request.trace;
    decode.window = request.window;
    DP_ASSIGN_OR_RETURN(WindowedTrace windowed, ImportWindow(decode, *importer, {}, "", names));
    for (const trace::Dispatch& d : windowed.window.dispatches) census.Add(d);
    info = std::move(windowed.info);
    result.window_source = windowed.window_source;
    result.window_lo = windowed.window.lo;
    result.window_hi = windowed.window.hi;
    result.window_steps = windowed.steps;
  } else {
    trace::TraceBuilder builder(names, census);
    builder.set_device_filter(request.trace.device);
    builder.set_position_word(importer->position_word());
    builder.trace().format = result.format;
    DP_RETURN_IF_ERROR(importer->Import(request.trace.path, builder));
    info = std::move(builder).Finish();
    DP_RETURN_IF_ERROR(CheckImported(request.trace, *importer, info));
  }

  result.device =
      request.trace.device ? *request.trace.device : info.dispatches_per_device.begin()->first;
  for (const trace::Device& d : info.devices) {
    if (d.id == result.device) result.device_name = d.name;
  }
  result.clock = ClockText(info);
  result.device_dispatches = census.offered();
  if (request.window.kind == WindowSpec::Kind::kDecode) {
    result.device_dispatches = info.dispatches_per_device[result.device];
  }
  result.first_start = census.first_start();
  result.last_start = census.last_start();
  if (!pack) {
    std::vector<std::string_view> kernel_names;
    for (const trace::StringId id : census.KernelNameIds()) kernel_names.push_back(names.Get(id));
    const packs::PackChoice choice =
        packs::DefaultPackFor(kernel_names,
                              std::string(importer->name()) +
                                  (packs::FormatDefaultFor(importer->default_pack(),
                                                           info.runtime) != importer->default_pack()
                                       ? " (HIP)"
                                       : ""),
                              packs::FormatDefaultFor(importer->default_pack(), info.runtime));
    result.notes.push_back(choice.note);
    DP_ASSIGN_OR_RETURN(pack, packs::LoadPack(choice.pack));
  }
  result.pack = pack->name();
  result.by_name = census.ByName(names, *pack, RepairedName);
  if (result.by_name.names_repaired > 0) {
    info.diagnostics.Add(trace::Diag::kNamesRepaired, result.by_name.names_repaired,
                         {request.trace.path, "", result.by_name.first_repaired});
  }
  DP_RETURN_IF_ERROR(ErrorDiagnostic(request.trace.path, info.diagnostics));
  result.diagnostics = info.diagnostics.entries();
  return result;
}

}  // namespace decodeprof::pipeline
