#include <tine/distributed/exception_transport.hpp>

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

/// A kind for a standard type rebuilt from its what().
template <typename E>
exception_kind with_message(const char* name) {
  return exception_kind{name, &typeid(E),
                        [](const std::exception_ptr& e, std::string&) {
                          try {
                            std::rethrow_exception(e);
                          } catch (const E&) {
                            return true;
                          } catch (...) {
                            return false;
                          }
                        },
                        [](std::string_view, std::string_view what) {
                          return std::make_exception_ptr(E(std::string(what)));
                        }};
}

/// A kind for a standard type that is default-constructed (its what() is fixed).
template <typename E>
exception_kind without_message(const char* name) {
  return exception_kind{
      name, &typeid(E),
      [](const std::exception_ptr& e, std::string&) {
        try {
          std::rethrow_exception(e);
        } catch (const E&) {
          return true;
        } catch (...) {
          return false;
        }
      },
      [](std::string_view, std::string_view) { return std::make_exception_ptr(E()); }};
}

registry& the_registry() {
  static registry* r = [] {
    auto* made = new registry;  // never destroyed: exceptions may cross during static teardown
    made->add(without_message<std::exception>("std::exception"));
    made->exact_only.push_back(&typeid(std::exception));
    made->add(without_message<std::bad_alloc>("std::bad_alloc"));
    made->add(without_message<std::bad_array_new_length>("std::bad_array_new_length"));
    made->add(without_message<std::bad_cast>("std::bad_cast"));
    made->add(without_message<std::bad_any_cast>("std::bad_any_cast"));
    made->add(without_message<std::bad_typeid>("std::bad_typeid"));
    made->add(without_message<std::bad_exception>("std::bad_exception"));
    made->add(without_message<std::bad_function_call>("std::bad_function_call"));
    made->add(without_message<std::bad_optional_access>("std::bad_optional_access"));
    made->add(without_message<std::bad_variant_access>("std::bad_variant_access"));
    made->add(without_message<std::bad_weak_ptr>("std::bad_weak_ptr"));
    made->add(with_message<std::logic_error>("std::logic_error"));
    made->add(with_message<std::invalid_argument>("std::invalid_argument"));
    made->add(with_message<std::domain_error>("std::domain_error"));
    made->add(with_message<std::length_error>("std::length_error"));
    made->add(with_message<std::out_of_range>("std::out_of_range"));
    made->add(exception_kind{"std::future_error", &typeid(std::future_error),
                             [](const std::exception_ptr& e, std::string& payload) {
                               try {
                                 std::rethrow_exception(e);
                               } catch (const std::future_error& f) {
                                 payload = int_payload(f.code().value());
                                 return true;
                               } catch (...) {
                                 return false;
                               }
                             },
                             [](std::string_view payload, std::string_view) {
                               return std::make_exception_ptr(std::future_error(
                                   static_cast<std::future_errc>(int_of(payload))));
                             }});
    made->add(with_message<std::runtime_error>("std::runtime_error"));
    made->add(with_message<std::range_error>("std::range_error"));
    made->add(with_message<std::overflow_error>("std::overflow_error"));
    made->add(with_message<std::underflow_error>("std::underflow_error"));
    // A system_error travels with its code when its category is one every rank has; what() is
    // rebuilt as the constructor makes it, "prefix: message".
    made->add(exception_kind{
        "std::system_error", &typeid(std::system_error),
        [](const std::exception_ptr& e, std::string& payload) {
          try {
            std::rethrow_exception(e);
          } catch (const std::system_error& s) {
            if (category_named(s.code().category().name()) == nullptr) {
              return false;
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
            payload.clear();
            put_field(payload, int_payload(s.code().value()));
            put_field(payload, s.code().category().name());
            put_field(payload, prefix);
            return true;
          } catch (...) {
            return false;
          }
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
        }});
    made->add(without_message<tine::cancelled>("tine::cancelled"));
    made->add(exception_kind{"tine::mpi::remote_error", &typeid(remote_error),
                             [](const std::exception_ptr& e, std::string& payload) {
                               try {
                                 std::rethrow_exception(e);
                               } catch (const remote_error& r) {
                                 payload = int_payload(r.origin_rank());
                                 return true;
                               } catch (...) {
                                 return false;
                               }
                             },
                             [](std::string_view payload, std::string_view what) {
                               return std::make_exception_ptr(
                                   remote_error(std::string(what), int_of(payload)));
                             }});
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
