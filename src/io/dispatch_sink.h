// The sink interface lives in the trace model (src/trace/dispatch_sink.h) so that the
// analysis can consume a stream without depending on io; importers name it io::DispatchSink.
#pragma once

#include "src/trace/dispatch_sink.h"

namespace decodeprof::io {
using DispatchSink = trace::DispatchSink;
}  // namespace decodeprof::io
