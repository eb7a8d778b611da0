// The GL entry points, from the glad loader generated into the build tree
// (cmake/TensorirGlad.cmake). Included only by .cpp files under backends/, never by a
// header under include/.
#pragma once
#include <glad/gl.h>
