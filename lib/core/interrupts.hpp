// What a run does when it is interrupted (defined in report.cpp, beside the atomic
// report write they protect): its own header so that code outside the suite (the
// profiler's injection library) can use the trace writer without Google Benchmark.
#pragma once

#include <string>

namespace hdbench {

// On SIGINT/SIGTERM/SIGHUP (a closed terminal or ssh session): removes a temp file being
// written, then dies of the signal as usual (so an earlier report stays intact and no
// partial file is left). SIGPIPE is ignored: a reader of the console that went away
// (`| head`) fails the console's writes, not the run and its report. Standard input,
// output and error that were closed are opened on /dev/null first, so that no file
// the run opens (the report's temp file) takes their number and a console line.
void install_interrupt_cleanup();

// After this, the first SIGINT/SIGTERM/SIGHUP only sets interrupt_requested() (the suite then
// skips the benchmarks not yet run, so the report and the trace get written); a
// second one ends the run as install_interrupt_cleanup says. interrupt_signal() is the
// first one's number (0 while none came): the run then exits 128 + it, as a shell's would.
void defer_first_interrupt() noexcept;
bool interrupt_requested() noexcept;
int interrupt_signal() noexcept;

// One more temp file (a streamed trace) that the interrupt removes, until
// keep_on_interrupt(). A path too long for the handler's buffer is not registered.
void remove_on_interrupt(const std::string& path) noexcept;
void keep_on_interrupt() noexcept;

}  // namespace hdbench
