// decodeprof::profile — provenance from git (seed spec 2.1): the commit a profile belongs
// to, whether the checkout differs from it, and the checkout's root (scrubbed from the
// published logs).
#pragma once

#include <string>

namespace decodeprof::profile {

struct GitInfo {
  std::string root;    // `git rev-parse --show-toplevel`; "" outside a work tree or without git
  std::string commit;  // `git rev-parse --short=8 HEAD`; "" when there is no commit
  // `git status --porcelain --untracked-files=no` printed something: tracked files differ
  // from the commit (untracked files do not count).
  bool dirty = false;
};

// Asks git about the current directory. Never fails: no git, or not a work tree, gives an
// empty GitInfo (the provenance note is then skipped).
GitInfo ReadGitInfo();

// The seed's provenance warning: "note: the source tree differs from <commit>; record the
// diff with the results".
std::string ProvenanceNote(const std::string& commit);

}  // namespace decodeprof::profile
