#include "src/guard/gpu_source.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "src/guard/messages.h"
#include "src/guard/proc_fs.h"

namespace decodeprof::guard {

base::StatusOr<GpuReading> KfdSource::Read() {
  const std::optional<std::vector<std::string>> names = ListDirectory(dir_);
  if (!names) {
    return base::IoError(dir_, std::string("cannot list: ") + std::strerror(errno));
  }
  GpuReading reading;
  for (const std::string& name : *names) reading.processes.push_back(GpuProcess{name, -1});
  return reading;
}

const char* KfdSource::EmptyPhrase() const { return kKfdEmpty; }

bool IsDirectory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace decodeprof::guard
