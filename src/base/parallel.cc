#include "src/base/parallel.h"

#include <sched.h>

namespace decodeprof::base {

unsigned UsableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) {
    return std::max(1u, static_cast<unsigned>(CPU_COUNT(&set)));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

size_t PassParts(size_t n, size_t min_size) {
  const size_t by_size = n / std::max<size_t>(1, min_size);
  return std::max<size_t>(1, std::min({size_t{UsableCpus()}, kMaxPassParts, by_size}));
}

}  // namespace decodeprof::base
