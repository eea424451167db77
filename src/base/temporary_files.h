// Temporary files that must not outlive the process: the `<output>.tmp.<pid>` files of
// AtomicFileWriter (file_io.h) and the private directories of recordings that are not kept.
//
// A fixed table of paths (no allocation once registered) that a handler of SIGINT, SIGTERM and
// SIGHUP empties with async-signal-safe calls only (unlink, and for a directory openat,
// getdents64, unlinkat of its files, then rmdir) before it re-raises the signal with its default
// action, so the process still ends "by the signal" (exit status 128 + N in a shell). Each entry
// remembers the process that registered it: a forked child that gets the signal never removes
// its parent's files. A signal that was ignored when the handlers were installed (nohup) stays
// ignored.
#pragma once

#include <signal.h>

#include <cstddef>
#include <string>

namespace decodeprof::base {

// At most this many registered at once; Register beyond it returns -1 (the file is then only
// removed by its owner's normal error path).
inline constexpr int kMaxTemporaryFiles = 64;

// Installs the handlers (once; later calls do nothing). main() calls it before any output is
// written. A module that installs its own handlers for these signals (profile, record) replaces
// these while it runs and calls RemoveTemporaryFiles() itself where it needs to.
void InstallTemporaryFileCleanup();

// Registers `path` (made absolute against the current directory) as a temporary file, or a
// directory when `directory`. Returns a handle for Unregister, or -1 when the table is full or
// the path too long. The signals are blocked while the table changes.
int RegisterTemporary(const std::string& path, bool directory = false);

// Forgets the entry (after the file was renamed into place or removed). -1 is ignored.
void UnregisterTemporary(int handle);

// Removes every file and directory this process registered (async-signal-safe). The handlers
// call it; so may a module's own handler.
void RemoveTemporaryFiles();

// Registered entries of this process (tests).
int TemporaryFileCount();

// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread while it lives, so a file is created
// and registered (or renamed and forgotten) in one step as far as the handler can tell. A
// signal sent to the process then goes to another thread (a mask is a thread's own): the
// handler there waits until no SignalBlock is alive before it removes the files, so that a
// file created but not yet registered is not left behind.
class SignalBlock {
 public:
  SignalBlock();
  ~SignalBlock();
  SignalBlock(const SignalBlock&) = delete;
  SignalBlock& operator=(const SignalBlock&) = delete;

 private:
  sigset_t old_;
};

}  // namespace decodeprof::base
