// Shader programs: compile and link, and on failure an error with the driver's log and
// the source lines it points at.
#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "backends/glsl/fragment/fragment_module.h"
#include "backends/opengl/gl_api.h"
#include "backends/opengl/gl_runtime.h"
#include "tensorir/error.h"

namespace tensorir::opengl {

namespace {

std::vector<std::string> split_lines(const std::string &s) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// Line numbers a driver log refers to, in order of first mention.
std::vector<int> referenced_lines(const std::string &log) {
  static const std::regex patterns[] = {
      std::regex(R"(^\s*\d+:(\d+)\(\d+\))"),           // Mesa: 0:12(5): error: ...
      std::regex(R"(^\s*(?:ERROR|WARNING): \d+:(\d+):)"),  // ERROR: 0:12: ...
      std::regex(R"(^\s*\d+\((\d+)\)\s*:)"),           // 0(12) : error ...
  };
  std::vector<int> out;
  for (const std::string &line : split_lines(log)) {
    std::smatch m;
    for (const std::regex &re : patterns)
      if (std::regex_search(line, m, re)) {
        int n = std::stoi(m[1].str());
        if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
        break;
      }
  }
  return out;
}

std::string shader_log(GLuint shader) {
  GLint len = 0;
  glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &len);
  std::string log(static_cast<size_t>(std::max(len, 1)), '\0');
  glGetShaderInfoLog(shader, len, nullptr, log.data());
  log.resize(std::char_traits<char>::length(log.c_str()));
  return log;
}

std::string program_log(GLuint program) {
  GLint len = 0;
  glGetProgramiv(program, GL_INFO_LOG_LENGTH, &len);
  std::string log(static_cast<size_t>(std::max(len, 1)), '\0');
  glGetProgramInfoLog(program, len, nullptr, log.data());
  log.resize(std::char_traits<char>::length(log.c_str()));
  return log;
}

GLuint compile_shader(GLenum type, const std::string &source, const std::string &what) {
  GLuint shader = glCreateShader(type);
  TIR_USER_CHECK(shader != 0) << "OpenGL could not create a shader object for " << what;
  const char *text = source.c_str();
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok != GL_TRUE) {
    std::string log = shader_log(shader);
    glDeleteShader(shader);
    TIR_THROW() << what << " does not compile:\n" << annotate_shader_log(log, source);
  }
  return shader;
}

GLuint link_program(const std::vector<GLuint> &shaders, const std::string &what, const std::string &source) {
  GLuint program = glCreateProgram();
  for (GLuint s : shaders) glAttachShader(program, s);
  glLinkProgram(program);
  for (GLuint s : shaders) {
    glDetachShader(program, s);
    glDeleteShader(s);
  }
  GLint ok = GL_FALSE;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (ok != GL_TRUE) {
    std::string log = program_log(program);
    glDeleteProgram(program);
    TIR_THROW() << what << " does not link:\n" << annotate_shader_log(log, source);
  }
  return program;
}


}  // namespace


std::string annotate_shader_log(const std::string &log, const std::string &source) {
  std::ostringstream os;
  std::string trimmed = log;
  while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' ')) trimmed.pop_back();
  os << (trimmed.empty() ? "(the driver gave no log)" : trimmed) << "\n";
  std::vector<std::string> lines = split_lines(source);
  std::vector<int> refs = referenced_lines(log);
  std::set<int> show, marked;
  for (int r : refs)
    if (r >= 1 && r <= static_cast<int>(lines.size())) {
      marked.insert(r);
      for (int k = std::max(1, r - 1); k <= std::min<int>(static_cast<int>(lines.size()), r + 1); ++k) show.insert(k);
    }
  if (show.empty()) {  // nothing to point at: the whole source, so the reader has it
    os << "source:\n";
    for (size_t i = 0; i < lines.size(); ++i) show.insert(static_cast<int>(i + 1));
  } else {
    os << "at:\n";
  }
  int last = 0;
  for (int k : show) {
    if (last && k > last + 1) os << "      ...\n";
    std::string num = std::to_string(k);
    os << (marked.count(k) ? ">" : " ") << std::string(num.size() < 5 ? 5 - num.size() : 0, ' ') << num << " | "
       << lines[static_cast<size_t>(k - 1)] << "\n";
    last = k;
  }
  std::string out = os.str();
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

unsigned compile_compute_program(const std::string &source, const std::string &name) {
  GLScope scope;
  std::string what = "the compute shader of kernel '" + name + "'";
  GLuint shader = compile_shader(GL_COMPUTE_SHADER, source, what);
  return link_program({shader}, what, source);
}

unsigned compile_fragment_program(const std::string &fragment_source, const std::string &name) {
  GLScope scope;
  std::string what = "the fragment shader of kernel '" + name + "'";
  GLuint vs = compile_shader(GL_VERTEX_SHADER, glsl::fullscreen_vertex_shader(), "the built-in vertex shader");
  GLuint fs = 0;
  try {
    fs = compile_shader(GL_FRAGMENT_SHADER, fragment_source, what);
  } catch (...) {
    glDeleteShader(vs);
    throw;
  }
  return link_program({vs, fs}, what, fragment_source);
}

void delete_program(unsigned program) noexcept {
  if (program == 0 || !GLContext::alive()) return;
  try {
    GLScope scope;
    glDeleteProgram(program);
  } catch (...) {
  }
}

}  // namespace tensorir::opengl
