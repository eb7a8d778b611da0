// The warning handler (tensorir/warning.h).
#include "tensorir/warning.h"

#include <iostream>
#include <mutex>

namespace tensorir {

namespace {

std::mutex &handler_mutex() {
  static std::mutex m;
  return m;
}

WarningHandler &handler() {
  static WarningHandler h;
  return h;
}

}  // namespace

WarningHandler set_warning_handler(WarningHandler h) {
  std::lock_guard<std::mutex> lock(handler_mutex());
  std::swap(handler(), h);
  return h;
}

void warn(const std::string &message) {
  WarningHandler h;
  {
    std::lock_guard<std::mutex> lock(handler_mutex());
    h = handler();
  }
  if (h)
    h(message);
  else
    std::cerr << "tensorir: warning: " << message << "\n";
}

}  // namespace tensorir
