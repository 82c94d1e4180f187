// Linked into the distributed test programs only. MPICH loads its transports (UCX modules) with
// dlopen and unloads them in MPI_Finalize; memory that they still reference from their own
// globals then looks leaked to LeakSanitizer, which checks after main returns and can no longer
// see those globals (its reports name an "<unknown module>"). Keeping every module loaded, as
// this dlclose does, leaves leak checking on for everything else, tine's code included. The
// executable's definition takes precedence over the C library's for every module, exported by
// -rdynamic (see BUILD.bazel).

extern "C" int dlclose(void*) { return 0; }
