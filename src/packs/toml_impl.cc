// The one translation unit that compiles toml++'s implementation (TOML_HEADER_ONLY=0 for
// this library, see CMakeLists.txt), so the binary needs no libtomlplusplus.so.
#define TOML_IMPLEMENTATION
#include "src/packs/toml_fields.h"
