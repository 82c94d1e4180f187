"""Repository rules that make tine build offline from Debian packages.

Bazel 4.2.3 (Debian's bazel-bootstrap) wants to download rules_cc, rules_java and
remote_coverage_tools; none of that works without internet. Everything here is
built from what Debian installs instead, and every rule fails at fetch time with
the Debian package to install, rather than with an obscure error later.
See docs/build.md for the why of each one.
"""

def _apt_hint(name, package):
    return "tine: {} not found; install it with: apt-get install {}".format(name, package)

# ---------------------------------------------------------------------------
# A copy of a directory Debian ships (rules_cc, rules_java), with string patches.
# ---------------------------------------------------------------------------

def _debian_copy_impl(ctx):
    src = ctx.attr.path
    if not ctx.path(src).exists:
        fail(_apt_hint(ctx.attr.what, ctx.attr.debian_package) + " (expected " + src + ")")

    # A real copy, not a symlink: we patch files and must not touch /usr/share.
    res = ctx.execute(["cp", "-R", src + "/.", "."])
    if res.return_code != 0:
        fail("tine: copying {} failed: {}".format(src, res.stderr))

    # The upstream WORKSPACE lists http_archives for developing the rules
    # themselves; Bazel ignores them here, but a plain one keeps it obvious.
    ctx.file("WORKSPACE", "workspace(name = \"{}\")\n".format(ctx.name))

    # patches: "file" -> "old|||new;;;old|||new". A missing "old" is not an error, so
    # a newer Debian copy that no longer needs the patch still works.
    for f, edits in ctx.attr.patches.items():
        text = ctx.read(f)
        for edit in edits.split(";;;"):
            old, new = edit.split("|||")
            text = text.replace(old, new)
        ctx.file(f, text)

tine_debian_copy = repository_rule(
    implementation = _debian_copy_impl,
    attrs = {
        "path": attr.string(mandatory = True),
        "what": attr.string(mandatory = True),
        "debian_package": attr.string(mandatory = True),
        "patches": attr.string_dict(),
    },
)

# Debian's rules_cc 0.0.4 loads use_cpp_toolchain from @bazel_tools, which
# Bazel 4.2.3 does not have yet; what it returns is just this toolchain type.
_USE_CPP_TOOLCHAIN = (
    ", \"use_cpp_toolchain\")|||)" +
    ";;;use_cpp_toolchain()|||[\"@bazel_tools//tools/cpp:toolchain_type\"]"
)

RULES_CC_PATCHES = {
    "cc/private/rules_impl/compiler_flag.bzl": _USE_CPP_TOOLCHAIN,
    "cc/private/rules_impl/cc_flags_supplier.bzl": _USE_CPP_TOOLCHAIN,
}

# ---------------------------------------------------------------------------
# remote_coverage_tools: `bazel test` needs the two labels to exist.
# ---------------------------------------------------------------------------

def _coverage_stub_impl(ctx):
    ctx.file("coverage_stub.sh", """#!/bin/sh
echo "tine: coverage tools are not available offline (stand-in from tools/repo_rules.bzl)" >&2
exit 1
""", executable = True)
    ctx.file("BUILD.bazel", """# Stand-in for Bazel's downloaded coverage tools: `bazel test` only needs the
# labels to exist; `bazel coverage` is not supported offline.
package(default_visibility = ["//visibility:public"])

sh_binary(name = "coverage_report_generator", srcs = ["coverage_stub.sh"])

sh_binary(name = "lcov_merger", srcs = ["coverage_stub.sh"])
""")

tine_coverage_stub = repository_rule(implementation = _coverage_stub_impl)

# ---------------------------------------------------------------------------
# System libraries, probed at fetch time.
# ---------------------------------------------------------------------------

def _quote_list(items):
    return "[" + ", ".join(['"{}"'.format(i) for i in items]) + "]"

def _find_cxx(ctx):
    for cand in [ctx.os.environ.get("CXX", ""), "g++", "c++"]:
        if cand:
            p = ctx.which(cand) if "/" not in cand else ctx.path(cand)
            if p and p.exists:
                return p
    fail(_apt_hint("a C++ compiler", "g++"))

def _pretending_missing(ctx):
    raw = ctx.os.environ.get("TINE_PRETEND_MISSING", "").replace(",", " ")
    names = [n for n in raw.split(" ") if n]
    return ctx.attr.target in names or ctx.name in names

def _probe(ctx):
    """Builds and runs the probe: (headers to export, None), or (None, why it failed)."""

    # Headers outside the compiler's built-in include directories (e.g. LLVM's
    # omp.h) are symlinked into include/ so Bazel's header checks accept them.
    hdrs = []
    for pattern in ctx.attr.header_globs:
        res = ctx.execute(["sh", "-c", "ls -d " + pattern + " 2>/dev/null | sort -V | tail -n 1"])
        found = res.stdout.strip()
        if not found:
            return None, "no file matches " + pattern
        dst = "include/" + found.split("/")[-1]
        ctx.symlink(found, dst)
        hdrs.append(dst)

    # The probe: compile, link and run a one-line program exactly the way a
    # dependent target will (same defines, includes and linkopts).
    # Compile and link are separate steps, as in Bazel: e.g. -fopenmp at compile
    # time must not become -fopenmp (hence libgomp) at link time for libomp.
    cxx = _find_cxx(ctx)
    ctx.file("probe.cpp", ctx.attr.probe)
    compile = [str(cxx), "-std=c++20", "-c", "probe.cpp", "-o", "probe.o"]
    compile += ["-D" + d for d in ctx.attr.defines]
    compile += ["-Iinclude"] if hdrs else []
    compile += ctx.attr.probe_copts
    link = [str(cxx), "probe.o", "-o", "probe"] + ctx.attr.linkopts
    for cmd in [compile, link]:
        res = ctx.execute(cmd, timeout = 120)
        if res.return_code != 0:
            return None, "probe `{}` failed:\n{}".format(" ".join(cmd), res.stderr)
    res = ctx.execute(["./probe"], timeout = 60)
    if res.return_code != 0:
        return None, "probe program built but failed to run:\n{}{}".format(res.stdout, res.stderr)
    ctx.delete("probe")
    ctx.delete("probe.o")
    return hdrs, None

def _available_bzl(ctx, available, notice):
    ctx.file("available.bzl", """# Generated by tine_system_library: was {library} found?
AVAILABLE = {available}
NOTICE = {notice}
""".format(library = ctx.attr.library, available = available, notice = repr(notice)))

def _system_library_impl(ctx):
    hint = _apt_hint(ctx.attr.library, ctx.attr.debian_package)
    if _pretending_missing(ctx):
        hdrs, why = None, "TINE_PRETEND_MISSING={} makes it look missing".format(
            ctx.os.environ.get("TINE_PRETEND_MISSING", ""),
        )
    else:
        hdrs, why = _probe(ctx)

    if why != None:
        if not ctx.attr.optional:
            fail("{}\n({})".format(hint, why))

        # Optional: an empty target and AVAILABLE = False; dependents choose another build.
        notice = "{}; {}".format(hint, ctx.attr.without)

        later = "Once it is installed, `bazel sync --only={}` builds with it.".format(ctx.name)

        # print() is how a repository rule says something without failing (Bazel shows it as
        # DEBUG); the notice is meant to be seen, once per fetch.
        # buildifier: disable=print
        print("{}\n({})\n{}".format(notice, why, later))
        _available_bzl(ctx, False, notice)
        ctx.file("BUILD.bazel", """# Generated by tine_system_library: {library} ({pkg}) was NOT
# found, so this target is empty and available.bzl says AVAILABLE = False.
exports_files(["available.bzl"])

cc_library(
    name = "{target}",
    visibility = ["//visibility:public"],
)
""".format(library = ctx.attr.library, pkg = ctx.attr.debian_package, target = ctx.attr.target))
        ctx.file("WORKSPACE", "workspace(name = \"{}\")\n".format(ctx.name))
        return

    _available_bzl(ctx, True, "")
    ctx.file("BUILD.bazel", """# Generated by tine_system_library ({library}, Debian package {pkg}).
# Native cc_library so this repository needs no other repository.
exports_files(["available.bzl"])

cc_library(
    name = "{target}",
    hdrs = {hdrs},
    includes = {includes},
    defines = {defines},
    linkopts = {linkopts},
    visibility = ["//visibility:public"],
)
{main}""".format(
        library = ctx.attr.library,
        pkg = ctx.attr.debian_package,
        target = ctx.attr.target,
        hdrs = _quote_list(hdrs),
        includes = _quote_list(["include"] if hdrs else []),
        defines = _quote_list(ctx.attr.defines),
        linkopts = _quote_list(ctx.attr.linkopts),
        main = "" if not ctx.attr.main_target else """
# The library's own main(), for tests that do not write one.
cc_library(
    name = "{name}",
    linkopts = {linkopts},
    visibility = ["//visibility:public"],
    deps = [":{target}"],
)
""".format(
            name = ctx.attr.main_target,
            linkopts = _quote_list(ctx.attr.main_linkopts),
            target = ctx.attr.target,
        ),
    ))
    ctx.file("WORKSPACE", "workspace(name = \"{}\")\n".format(ctx.name))

tine_system_library = repository_rule(
    implementation = _system_library_impl,
    attrs = {
        "library": attr.string(mandatory = True, doc = "name used in messages"),
        "target": attr.string(mandatory = True, doc = "the cc_library's name"),
        "debian_package": attr.string(mandatory = True),
        "probe": attr.string(mandatory = True, doc = "C++ source of a tiny program that must build and run"),
        "probe_copts": attr.string_list(doc = "compile flags the probe needs but dependents set themselves"),
        "defines": attr.string_list(doc = "propagated to every dependent"),
        "linkopts": attr.string_list(),
        "header_globs": attr.string_list(doc = "absolute globs; the newest match is symlinked into include/"),
        "optional": attr.bool(
            doc = "if the probe fails, print a notice and make an empty target with " +
                  "AVAILABLE = False in available.bzl instead of failing",
        ),
        "without": attr.string(doc = "for an optional library: what tine does without it"),
        "main_target": attr.string(doc = "if set, a second cc_library of this name: the library's main()"),
        "main_linkopts": attr.string_list(doc = "the main_target's linkopts (before the library's)"),
    },
    # TINE_PRETEND_MISSING: names (target or repository, comma or space separated) to treat
    # as missing, so the path without a library can be tested on a machine that has it.
    environ = ["CXX", "TINE_PRETEND_MISSING"],
)
