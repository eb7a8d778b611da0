// Intrusive reference counting shared by IR nodes, operations and schedules.
#pragma once
#include <atomic>
#include <cstddef>
#include <utility>

namespace tensorir {

class Object {
 public:
  Object() = default;
  Object(const Object &) = delete;
  Object &operator=(const Object &) = delete;
  virtual ~Object() = default;

  void inc_ref() const { ref_.fetch_add(1, std::memory_order_relaxed); }
  void dec_ref() const {
    if (ref_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

 private:
  mutable std::atomic<int> ref_{0};
};

// A counted pointer to T (T derives from Object). Null by default.
template <typename T>
class Ref {
 public:
  Ref() = default;
  Ref(std::nullptr_t) {}
  Ref(const T *p) : p_(const_cast<T *>(p)) {
    if (p_) p_->inc_ref();
  }
  Ref(const Ref &o) : Ref(o.p_) {}
  Ref(Ref &&o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  template <typename U>
  Ref(const Ref<U> &o) : Ref(static_cast<const T *>(o.get())) {}
  ~Ref() {
    if (p_) p_->dec_ref();
  }
  Ref &operator=(Ref o) {
    std::swap(p_, o.p_);
    return *this;
  }

  T *get() const { return p_; }
  T *operator->() const { return p_; }
  T &operator*() const { return *p_; }
  bool defined() const { return p_ != nullptr; }
  explicit operator bool() const { return p_ != nullptr; }
  bool same_as(const Ref &o) const { return p_ == o.p_; }

 private:
  T *p_ = nullptr;
};

}  // namespace tensorir
