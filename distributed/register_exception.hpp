#ifndef TINE_DISTRIBUTED_REGISTER_EXCEPTION_HPP
#define TINE_DISTRIBUTED_REGISTER_EXCEPTION_HPP

/// \file register_exception.hpp
/// `tine::mpi::register_exception`: which exceptions cross MPI ranks as themselves, and how a
/// program adds its own types. An exception that escapes a task on one rank may be caught on
/// another (at a join, or around `sync_wait` on every rank); the receiving rank rebuilds an object
/// of the same type from a description (the name of its type, its `what()`, and whatever else the
/// type needs, a `std::system_error`'s code, say), so that `catch (const std::invalid_argument&)`
/// inside a task, or around `sync_wait`, works the same on one rank and on many.
///
/// What travels as itself:
/// - the standard exceptions: `std::exception`, the `<stdexcept>` family (`logic_error`,
///   `invalid_argument`, `domain_error`, `length_error`, `out_of_range`, `runtime_error`,
///   `range_error`, `overflow_error`, `underflow_error`), `std::system_error` with a generic,
///   system, iostream or future category, `std::future_error`, `std::bad_alloc`,
///   `std::bad_array_new_length`, `std::bad_cast`, `std::bad_typeid`, `std::bad_exception`,
///   `std::bad_function_call`, `std::bad_optional_access`, `std::bad_variant_access`,
///   `std::bad_any_cast`, `std::bad_weak_ptr`; `tine::cancelled` and `tine::mpi::remote_error`;
/// - a type of the program's, once it is registered with `register_exception` on every rank.
///
/// An object of a type derived from one of these (and not registered itself) arrives as the
/// nearest of them that it derives from, with its `what()`: a `struct parse_error :
/// std::runtime_error` arrives as a `std::runtime_error`. Anything else arrives as a
/// `tine::mpi::remote_error` carrying the original `what()` (or, for a type not derived from
/// `std::exception`, a sentence saying so).
///
/// ```
/// struct bad_input : std::runtime_error {
///   using std::runtime_error::runtime_error;
/// };
/// // In main, after the tine::mpi::environment, on every rank:
/// tine::mpi::register_exception<bad_input>("bad_input");
/// ```

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>

namespace tine::mpi {
// What the templates below hand the registry, which is internal (exception_transport.cpp).
namespace detail {

/// One registered type, erased: `save` returns true and fills `payload` when `e` holds an object
/// of the type (or of a type derived from it); `load` rebuilds one from a payload and `what()`.
struct exception_kind {
  std::string name;
  const std::type_info* type;
  std::function<bool(const std::exception_ptr& e, std::string& payload)> save;
  std::function<std::exception_ptr(std::string_view payload, std::string_view what)> load;
};

/// The kind of `E` under `name`, made of a type's own two functions: `save(const E&)` returns the
/// payload (a `std::string`; or a `std::optional<std::string>`, empty when this object cannot
/// travel as an `E`), `load(payload, what)` returns the rebuilt object (an `E`, or a
/// `std::exception_ptr` to something else).
template <typename E, typename Save, typename Load>
exception_kind make_kind(std::string name, Save save, Load load) {
  return exception_kind{
      std::move(name), &typeid(E),
      [save = std::move(save)](const std::exception_ptr& e, std::string& payload) {
        try {
          std::rethrow_exception(e);
        } catch (const E& object) {
          // What save throws leaves here (serialise_exception sends the message alone).
          if constexpr (std::is_same_v<std::invoke_result_t<Save&, const E&>,
                                       std::optional<std::string>>) {
            std::optional<std::string> saved = save(object);
            if (!saved.has_value()) {
              return false;
            }
            payload = std::move(*saved);
          } else {
            payload = save(object);
          }
          return true;
        } catch (...) {
          return false;
        }
      },
      [load = std::move(load)](std::string_view payload, std::string_view what) {
        if constexpr (std::is_same_v<
                          std::invoke_result_t<Load&, std::string_view, std::string_view>,
                          std::exception_ptr>) {
          return load(payload, what);
        } else {
          return std::make_exception_ptr(load(payload, what));
        }
      }};
}

/// The kind of a type whose whole state is its message: rebuilt from its what().
template <typename E>
exception_kind rebuilt_from_what(std::string name) {
  return make_kind<E>(
      std::move(name), [](const E&) { return std::string(); },
      [](std::string_view, std::string_view what) { return E(std::string(what)); });
}

/// Adds `kind` to this process's registry. Throws std::invalid_argument if its name is taken by
/// another type (registering the same type under the same name again does nothing).
void register_exception_kind(exception_kind kind);

}  // namespace detail

/// Makes exceptions of type `E` (derived from `std::exception`) cross ranks as themselves, under
/// `name` (unique in the program, the same on every rank): `save(const E&)` returns a
/// `std::string` of the bytes that rebuild it, and `load(std::string_view bytes, std::string_view
/// what)` returns an `E`. Call it on every rank before such an exception may cross (right after
/// constructing the `tine::mpi::environment`), and register a type after the types it derives
/// from. Thread-safe. Throws std::invalid_argument if `name` already names another type.
template <typename E, typename Save, typename Load>
void register_exception(std::string name, Save save, Load load) {
  static_assert(std::is_base_of_v<std::exception, E>,
                "tine::mpi::register_exception: the type must derive from std::exception");
  static_assert(std::is_invocable_r_v<std::string, Save&, const E&>,
                "tine::mpi::register_exception: save must take a const E& and return a "
                "std::string");
  static_assert(std::is_invocable_r_v<E, Load&, std::string_view, std::string_view>,
                "tine::mpi::register_exception: load must take (std::string_view bytes, "
                "std::string_view what) and return an E");
  detail::register_exception_kind(
      detail::make_kind<E>(std::move(name), std::move(save), std::move(load)));
}

/// The same for a type whose whole state is its message: `E` must be constructible from a
/// `std::string` (as every `std::runtime_error` or `std::logic_error` is), and is rebuilt from its
/// `what()`.
template <typename E>
void register_exception(std::string name) {
  static_assert(std::is_base_of_v<std::exception, E>,
                "tine::mpi::register_exception: the type must derive from std::exception");
  static_assert(std::is_constructible_v<E, std::string>,
                "tine::mpi::register_exception<E>(name): E must be constructible from a "
                "std::string (its what()); otherwise pass save and load functions");
  detail::register_exception_kind(detail::rebuilt_from_what<E>(std::move(name)));
}

}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_REGISTER_EXCEPTION_HPP
