// Warnings: what a user should know that is no error (a tuning log made on a CPU with
// other vector features is ignored, not applied). Each goes to the warning handler, by
// default standard error as "tensorir: warning: <message>"; a program or a test sets its
// own to collect them.
#pragma once
#include <functional>
#include <string>

namespace tensorir {

using WarningHandler = std::function<void(const std::string &message)>;

// Sets the handler (an empty one restores the default) and returns the previous one.
// Thread-safe; the handler may be called from any thread.
WarningHandler set_warning_handler(WarningHandler handler);

// Reports `message` to the handler.
void warn(const std::string &message);

}  // namespace tensorir
