// The runtime's C entry points that compiled kernels call: exported from the shared
// library whatever the default symbol visibility.
#pragma once

#define TENSORIR_EXPORT __attribute__((visibility("default")))
