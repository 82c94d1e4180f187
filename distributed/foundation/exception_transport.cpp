#include <tine/distributed/foundation/exception_transport.hpp>

#include <any>
#include <cstdint>
#include <cstring>
#include <functional>
#include <future>
#include <ios>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <typeinfo>
#include <variant>
#include <vector>

#include <tine/core/cancelled.hpp>
#include <tine/distributed/remote_error.hpp>

namespace tine::mpi::detail {
namespace {

// The bytes: four fields, each a 32-bit length and that many bytes, then the origin rank.
void put_field(std::string& out, std::string_view field) {
  const auto n = static_cast<std::uint32_t>(field.size());
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out.append(field);
}

bool get_field(std::string_view& in, std::string_view& field) {
  std::uint32_t n = 0;
  if (in.size() < sizeof n) {
    return false;
  }
  std::memcpy(&n, in.data(), sizeof n);
  in.remove_prefix(sizeof n);
  if (in.size() < n) {
    return false;
  }
  field = in.substr(0, n);
  in.remove_prefix(n);
  return true;
}

std::string int_payload(int v) { return std::string(reinterpret_cast<const char*>(&v), sizeof v); }

int int_of(std::string_view payload) {
  int v = 0;
  if (payload.size() == sizeof v) {
    std::memcpy(&v, payload.data(), sizeof v);
  }
  return v;
}

const std::error_category* category_named(std::string_view name) {
  for (const std::error_category* c : {&std::generic_category(), &std::system_category(),
                                       &std::iostream_category(), &std::future_category()}) {
    if (name == c->name()) {
      return c;
    }
  }
  return nullptr;
}

// The built-in kinds. Types whose what() is fixed travel by name alone and are
// default-constructed on arrival; the <stdexcept> types are rebuilt from their what(). Each list
// is in registration order, a base before the types derived from it.
#define TINE_FIXED_WHAT(X)     \
  X(std::exception)            \
  X(std::bad_alloc)            \
  X(std::bad_array_new_length) \
  X(std::bad_cast)             \
  X(std::bad_any_cast)         \
  X(std::bad_typeid)           \
  X(std::bad_exception)        \
  X(std::bad_function_call)    \
  X(std::bad_optional_access)  \
  X(std::bad_variant_access)   \
  X(std::bad_weak_ptr)         \
  X(tine::cancelled)
#define TINE_REBUILT_FROM_WHAT(X) \
  X(std::logic_error)             \
  X(std::invalid_argument)        \
  X(std::domain_error)            \
  X(std::length_error)            \
  X(std::out_of_range)            \
  X(std::runtime_error)           \
  X(std::range_error)             \
  X(std::overflow_error)          \
  X(std::underflow_error)

template <typename E>
std::string fixed_payload(const E&) {
  return std::string();
}

template <typename E>
E fixed_load(std::string_view, std::string_view) {
  return E();
}

struct registry {
  std::mutex mutex;
  /// Registration order: a type after the types it derives from, so that walking backwards
  /// meets the most derived match first.
  std::vector<std::shared_ptr<const exception_kind>> kinds;
  /// Kinds found only by their exact type, never as the base of an unregistered type: a
  /// plain std::exception carries no message, and a type derived from it directly is better
  /// served by a remote_error that keeps its what().
  std::vector<const std::type_info*> exact_only;

  std::shared_ptr<const exception_kind> by_name(std::string_view name) {
    std::lock_guard lock(mutex);
    for (const auto& k : kinds) {
      if (k->name == name) {
        return k;
      }
    }
    return nullptr;
  }

  void add(exception_kind kind) {
    std::lock_guard lock(mutex);
    for (const auto& k : kinds) {
      if (k->name == kind.name) {
        if (*k->type == *kind.type) {
          return;
        }
        throw std::invalid_argument("tine::mpi::register_exception: the name \"" + kind.name +
                                    "\" is already registered for another type");
      }
    }
    kinds.push_back(std::make_shared<const exception_kind>(std::move(kind)));
  }
};

registry& the_registry() {
  static registry* r = [] {
    auto* made = new registry;  // never destroyed: exceptions may cross during static teardown
    // Base before derived (kind_of walks backwards): the fixed types, the message types, then
    // the types with payloads (future_error derives from logic_error; system_error and
    // remote_error from runtime_error). The names on the wire are the types' own spelling.
#define TINE_ADD_FIXED_WHAT(E) made->add(make_kind<E>(#E, fixed_payload<E>, fixed_load<E>));
#define TINE_ADD_REBUILT_FROM_WHAT(E) made->add(rebuilt_from_what<E>(#E));
    TINE_FIXED_WHAT(TINE_ADD_FIXED_WHAT)
    made->exact_only.push_back(&typeid(std::exception));
    TINE_REBUILT_FROM_WHAT(TINE_ADD_REBUILT_FROM_WHAT)
#undef TINE_ADD_FIXED_WHAT
#undef TINE_ADD_REBUILT_FROM_WHAT
    made->add(make_kind<std::future_error>(
        "std::future_error",
        [](const std::future_error& f) { return int_payload(f.code().value()); },
        [](std::string_view payload, std::string_view) {
          return std::future_error(static_cast<std::future_errc>(int_of(payload)));
        }));
    // A system_error travels with its code when its category is one every rank has; what() is
    // rebuilt as the constructor makes it, "prefix: message".
    made->add(make_kind<std::system_error>(
        "std::system_error",
        [](const std::system_error& s) -> std::optional<std::string> {
          if (category_named(s.code().category().name()) == nullptr) {
            return std::nullopt;
          }
          const std::string message = s.code().message();
          std::string_view what = s.what();
          std::string prefix;
          if (what != message) {
            const std::string suffix = ": " + message;
            prefix =
                what.size() >= suffix.size() && what.substr(what.size() - suffix.size()) == suffix
                    ? std::string(what.substr(0, what.size() - suffix.size()))
                    : std::string(what);
          }
          std::string payload;
          put_field(payload, int_payload(s.code().value()));
          put_field(payload, s.code().category().name());
          put_field(payload, prefix);
          return payload;
        },
        [](std::string_view payload, std::string_view what) {
          std::string_view value;
          std::string_view category;
          std::string_view prefix;
          const std::error_category* c = nullptr;
          if (get_field(payload, value) && get_field(payload, category) &&
              get_field(payload, prefix)) {
            c = category_named(category);
          }
          if (c == nullptr) {
            return std::make_exception_ptr(remote_error(std::string(what), -1));
          }
          const std::error_code code(int_of(value), *c);
          return prefix.empty()
                     ? std::make_exception_ptr(std::system_error(code))
                     : std::make_exception_ptr(std::system_error(code, std::string(prefix)));
        }));
    made->add(make_kind<remote_error>(
        "tine::mpi::remote_error",
        [](const remote_error& r) { return int_payload(r.origin_rank()); },
        [](std::string_view payload, std::string_view what) {
          return remote_error(std::string(what), int_of(payload));
        }));
    return made;
  }();
  return *r;
}

/// The registered kind `e` is, and its payload: its exact type if registered, otherwise the most
/// derived registered type it derives from (exact-only kinds aside); null if none.
std::shared_ptr<const exception_kind> kind_of(const std::exception_ptr& e, std::string& payload) {
  registry& r = the_registry();
  std::vector<std::shared_ptr<const exception_kind>> kinds;
  std::vector<const std::type_info*> exact_only;
  {
    std::lock_guard lock(r.mutex);
    kinds = r.kinds;
    exact_only = r.exact_only;
  }
#if defined(__GLIBCXX__) && defined(__cpp_rtti)
  // libstdc++ knows the thrown object's dynamic type: an exact match needs no search.
  if (const std::type_info* type = e.__cxa_exception_type(); type != nullptr) {
    for (const auto& k : kinds) {
      if (*k->type == *type && k->save(e, payload)) {
        return k;
      }
    }
  }
#endif
  for (auto it = kinds.rbegin(); it != kinds.rend(); ++it) {
    bool exact = false;
    for (const std::type_info* t : exact_only) {
      exact = exact || *t == *(*it)->type;
    }
    if (exact) {
      continue;
    }
    if ((*it)->save(e, payload)) {
      return *it;
    }
  }
  return nullptr;
}

}  // namespace

void register_exception_kind(exception_kind kind) { the_registry().add(std::move(kind)); }

std::string message_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& caught) {
    return caught.what();
  } catch (...) {
    return "an exception of a type not derived from std::exception";
  }
}

std::string serialise_exception(const std::exception_ptr& e, int origin_rank) {
  std::string payload;
  std::string name;
  try {
    if (const auto kind = kind_of(e, payload)) {
      name = kind->name;
    } else {
      payload.clear();
    }
  } catch (...) {
    // A save function that threw (or no memory): the message still travels.
    name.clear();
    payload.clear();
  }
  std::string out;
  put_field(out, name);
  put_field(out, message_of(e));
  put_field(out, payload);
  put_field(out, int_payload(origin_rank));
  return out;
}

std::exception_ptr rebuild_exception(std::string_view bytes) {
  std::string_view name;
  std::string_view what;
  std::string_view payload;
  std::string_view origin;
  if (!get_field(bytes, name) || !get_field(bytes, what) || !get_field(bytes, payload) ||
      !get_field(bytes, origin)) {
    return std::make_exception_ptr(
        remote_error("tine internal error: an exception's description arrived damaged", -1));
  }
  try {
    if (!name.empty()) {
      if (const auto kind = the_registry().by_name(name)) {
        return kind->load(payload, what);
      }
    }
    return std::make_exception_ptr(remote_error(std::string(what), int_of(origin)));
  } catch (...) {
    // A load function that threw (or no memory): what it threw is the exception now.
    return std::current_exception();
  }
}

}  // namespace tine::mpi::detail
