#!/usr/bin/python3
"""rocm-perf kernels against the real CUDA toolkit headers (cooperative groups
with cg::reduce, CUB, Thrust from include/cccl, cache-hint loads and stores,
CCCL's versioned namespace, a host build with OpenMP),
for sm_90, with the build's flags from --build (a command or a template of
{src} {out} {arch} {dir}) and from compile_commands.json; template kernels,
errors in headers and in kernels.  Exit 77 (skipped) without a CUDA toolkit.

usage: check_real_headers.py ROCM_PERF CUDA_ROOT SOURCE_DIR WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys


def run(args, want_rc=0, cwd=None):
    p = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=cwd)
    if p.returncode != want_rc:
        sys.exit(f"FAIL: {' '.join(args)}: exit {p.returncode}, expected {want_rc}\n{p.stderr}")
    return p


def expect(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")


def kernels(rocm_perf, args, cwd=None):
    doc = json.loads(run([rocm_perf, "kernels", "--json"] + args, cwd=cwd).stdout)
    return doc, {k["qualified_name"]: k for k in doc["kernels"]}


def parsed_for_sm90(doc):
    """sm_90, or the newest architecture an older libclang knows with sm_90 asked for."""
    return doc["arch"] == "sm_90" or doc["asked_arch"] == "sm_90"


def main(argv):
    rocm_perf, cuda, src, work = argv[1:5]
    if not os.path.exists(os.path.join(cuda, "include", "cuda_runtime.h")):
        print(f"skip: no CUDA toolkit at {cuda}")
        return 77
    real = os.path.join(src, "tests", "optimize", "source", "real")
    os.makedirs(work, exist_ok=True)
    env_cuda = ["--lang", "cuda"]

    # Cooperative groups, CUB, Thrust: no errors, and the right verdicts.
    doc, ks = kernels(rocm_perf, ["--arch", "sm_90", os.path.join(real, "cg_cub_thrust.cu")])
    expect(doc["mode"] == "cuda", f"mode {doc['mode']}")
    expect(doc["diagnostics"]["errors"] == 0, f"errors: {doc['diagnostics']['first'][:3]}")
    expect(parsed_for_sm90(doc), f"arch {doc['arch']} asked {doc['asked_arch']}")
    loop = ks["tile_sums"]["loops"][0]
    expect(loop["verdict"] == "unroll" and not loop["unknown_call"],
           f"cg::reduce loop: {loop['verdict']}")
    loop = ks["staged_scale"]["loops"][0]
    expect(loop["barrier"] and loop["blocker"].startswith("calls sync"),
           f"block.sync() loop: {loop['blocker']}")
    expect(ks["block_totals"]["loops"][0]["verdict"] == "unroll", "CUB kernel loop")

    # The architecture from the build command (no --arch), and the text form says it.
    build = "nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o app cg_cub_thrust.cu"
    doc, _ = kernels(rocm_perf, ["--build", build, "cg_cub_thrust.cu"], cwd=real)
    expect(parsed_for_sm90(doc), f"--build arch: {doc['arch']} asked {doc['asked_arch']}")
    text = run([rocm_perf, "kernels", "--build", build, "cg_cub_thrust.cu"], cwd=real).stdout
    expect("parsed as cuda for sm_90" in text or "(asked for sm_90)" in text, text)
    expect("0 errors" in text and "function pointer" not in text, text)

    # A template kernel: operators on dependent types are no calls.
    doc, ks = kernels(rocm_perf, ["--arch", "sm_90", os.path.join(real, "tiled_template.cu")])
    expect(doc["diagnostics"]["errors"] == 0, f"template errors: {doc['diagnostics']}")
    outer, inner = ks["tiled_product"]["loops"]
    expect(outer["barrier"], f"outer: {outer['blocker']}")
    expect(inner["verdict"] == "unroll" and not inner["unknown_call"],
           f"inner loop over BlockSize: {inner['blocker']}")
    followed, functor = ks["apply"]["loops"]
    expect(followed["verdict"] == "unroll", f"twice(v[i]): {followed['blocker']}")
    expect("depends on a template parameter" in (functor["blocker"] or ""),
           f"op(v[i]): {functor['blocker']}")

    # The instantiations a build holds, from the cubin's symbols (nvcc builds sm_90 cubins
    # without a GPU), matched to the template kernel.
    nvcc = os.path.join(cuda, "bin", "nvcc")
    if os.access(nvcc, os.X_OK):
        cubin = os.path.join(work, "tiled_template.cubin")
        run([nvcc, "-cubin", "-arch=sm_90", "-o", cubin, os.path.join(real, "tiled_template.cu")])
        doc, ks = kernels(rocm_perf, ["--arch", "sm_90", "--code-object", cubin,
                                      os.path.join(real, "tiled_template.cu")])
        expect(sorted(ks["tiled_product"]["instantiations"]) ==
               ["_Z13tiled_productILj16EEvPKfS1_Pfj", "_Z13tiled_productILj32EEvPKfS1_Pfj"],
               f"instantiations {ks['tiled_product']['instantiations']}")
        expect(ks["apply"]["instantiations"] == [], "apply is never instantiated")
        text = run([rocm_perf, "kernels", "--code-object", cubin,
                    os.path.join(real, "tiled_template.cu")]).stdout
        expect("instantiation: _Z13tiled_productILj16EEvPKfS1_Pfj" in text, text)
    else:
        print(f"note: no {nvcc}: instantiations from a cubin not checked")

    # Errors in a header and in another kernel: the clean kernels are whole.
    doc, ks = kernels(rocm_perf, ["--arch", "sm_90", os.path.join(real, "header_error.cu")])
    expect(doc["diagnostics"]["errors"] > 0, "header_error.cu has errors")
    expect(ks["clean"]["error"] is None and ks["plain"]["error"] is None, "clean kernels")
    blocker = ks["clean"]["loops"][0]["blocker"] or ""
    expect(blocker.startswith("unknown callee scale: parse error in ")
           and "broken/lib.cuh:2" in blocker, f"unresolved callee: {blocker}")
    expect(ks["plain"]["loops"][0]["verdict"] == "unroll", "plain kernel")
    err = ks["broken_kernel"]["error"]
    expect(err and err["line"] == 21 and "not_declared_anywhere" in err["message"],
           f"kernel error {err}")

    # Loads and stores with a cache hint (__ldcs, __stcs, ...; llm.c): declared, no errors.
    doc, ks = kernels(rocm_perf, ["--arch", "sm_90", os.path.join(real, "cache_hints.cu")])
    expect(doc["diagnostics"]["errors"] == 0, f"cache hints: {doc['diagnostics']['first']}")
    expect(ks["streamed"]["error"] is None and ks["hinted"]["error"] is None, "cache hints")
    loop = ks["hinted"]["loops"][0]
    expect(loop["verdict"] == "unroll" and not loop["unknown_call"],
           f"__ldca loop: {loop['blocker']}")

    # A build command template as optimize takes it: {src} {out} {arch} {dir} are expanded
    # before its flags are taken, and "-include {src}" (a header kernel forced into the
    # program) does not have the source parsed twice.
    flags = os.path.join(real, "flags")
    build = "nvcc -O3 -I{dir}/include -DSCALE_FACTOR=2.0f -arch={arch} -o {out} {src}"
    doc, ks = kernels(rocm_perf, ["--arch", "sm_90", "--build", build, "needs_flags.cu"],
                      cwd=flags)
    expect(doc["diagnostics"]["errors"] == 0, f"template flags: {doc['diagnostics']['first']}")
    expect(ks["scaled"]["loops"][0]["trip_count"] == 16, "{dir}/include from the template")
    expect(parsed_for_sm90(doc), f"-arch={{arch}}: {doc['arch']}")
    hk = os.path.join(real, "header_kernel")
    build = "nvcc -O3 -std=c++17 -arch={arch} -include {src} main.cu -o {out}"
    doc, ks = kernels(rocm_perf, ["--arch", "sm_90", "--build", build,
                                  os.path.join(hk, "kernel.cuh")], cwd=hk)
    expect(doc["diagnostics"]["errors"] == 0, f"-include {{src}}: {doc['diagnostics']['first']}")
    expect(ks["tile_copy"]["error"] is None and ks["tile_copy"]["loops"], "header kernel")
    p = run([rocm_perf, "kernels", "--build", "nvcc -o {out} {source}", "x.cu"], want_rc=2)
    expect("unknown placeholder '{source}'" in p.stderr, p.stderr)

    # A HIP source the build compiles for NVIDIA GPUs (-D__HIP_PLATFORM_NVIDIA__, or an
    # sm_ architecture) parses as CUDA: HIP mode would define __HIP_PLATFORM_AMD__ too.
    hip = os.path.join(real, "nvidia_platform.hip")
    for build in ("nvcc -x cu -O3 -D__HIP_PLATFORM_NVIDIA__ -o {out} {src}",
                  "nvcc -x cu -O3 -arch=sm_90 -o {out} {src}"):
        doc, ks = kernels(rocm_perf, ["--build", build, hip])
        expect(doc["mode"] == "cuda", f"{build}: mode {doc['mode']}")
        expect(doc["diagnostics"]["errors"] == 0, f"{build}: {doc['diagnostics']['first']}")
        expect(ks["scale_rows"]["loops"][0]["verdict"] == "unroll", f"{build}: the loop")

    # The build's include directories and macros: --build, then compile_commands.json.
    doc, ks = kernels(rocm_perf, env_cuda + [os.path.join(flags, "needs_flags.cu")])
    expect(ks["scaled"]["error"] is not None, "needs_flags.cu without its flags")
    build = "nvcc -O3 -Iinclude '-DSCALE_FACTOR=2.0f' -arch=sm_90 -o app needs_flags.cu"
    doc, ks = kernels(rocm_perf, ["--build", build, "needs_flags.cu"], cwd=flags)
    expect(doc["diagnostics"]["errors"] == 0, f"--build flags: {doc['diagnostics']['first']}")
    expect(ks["scaled"]["loops"][0]["trip_count"] == 16, "TILE_WIDTH from the include dir")
    expect(parsed_for_sm90(doc), f"-arch=sm_90: {doc['arch']}")

    db = os.path.join(work, "compile_commands.json")
    for entry in ({"command": "/usr/local/cuda/bin/nvcc -DSCALE_FACTOR=3 -I include "
                              "--generate-code=arch=compute_90,code=[compute_90,sm_90] "
                              "-x cu -c needs_flags.cu -o needs_flags.o"},
                  {"arguments": ["nvcc", "--define-macro=SCALE_FACTOR=3", "--include-path",
                                 "include", "-arch", "sm_90", "-c", "needs_flags.cu"]}):
        other = {"directory": work, "file": "other.cu", "command": "nvcc -c other.cu"}
        mine = dict({"directory": flags, "file": "needs_flags.cu"}, **entry)
        with open(db, "w", encoding="utf-8") as f:
            json.dump([other, mine], f)
        doc, ks = kernels(rocm_perf, ["--compile-commands", db,
                                      os.path.join(flags, "needs_flags.cu")])
        expect(doc["diagnostics"]["errors"] == 0, f"{entry}: {doc['diagnostics']['first']}")
        expect(parsed_for_sm90(doc), f"{entry}: arch {doc['arch']}")
    p = run([rocm_perf, "kernels", "--compile-commands", db, os.path.join(real, "header_error.cu")],
            want_rc=2)
    expect("has no entry for" in p.stderr, p.stderr)
    with open(db, "w", encoding="utf-8") as f:
        f.write('{"not": "a list"}')
    p = run([rocm_perf, "kernels", "--compile-commands", db, os.path.join(flags, "needs_flags.cu")],
            want_rc=2)
    expect("not a compilation database" in p.stderr, p.stderr)
    p = run([rocm_perf, "kernels", "--build", "nvcc 'unclosed", "x.cu"], want_rc=2)
    expect("--build: the single quote" in p.stderr, p.stderr)

    check_arch_list(rocm_perf, nvcc, real, work)
    check_openmp(rocm_perf, real)
    shutil.rmtree(work)
    return 0


def check_arch_list(rocm_perf, nvcc, real, work):
    """CCCL's versioned namespace (cub::CUB_<version>_SM_<__CUDA_ARCH_LIST__>): nvcc's
    __CUDA_ARCH_LIST__ from the build's architectures, unless the build defines it."""
    src = os.path.join(real, "cub_namespace.cu")
    two = "nvcc -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -c"
    cases = ((["--arch", "sm_90"], "900"),
             (["--build", f"{two} cub_namespace.cu"], "800_900"),
             (["--build", "nvcc -arch=sm_90a -c cub_namespace.cu"], "900"),
             (["--build", "nvcc -arch=sm_90 -D__CUDA_ARCH_LIST__=750 -c cub_namespace.cu"],
              "750"))
    for args, arch_list in cases:
        doc, ks = kernels(rocm_perf, args + ["cub_namespace.cu"], cwd=real)
        expect(doc["diagnostics"]["errors"] == 0, f"{args}: {doc['diagnostics']['first']}")
        names = [q for q in ks if q.startswith("cub::CUB_")]
        expect(len(names) == 1 and names[0].endswith(f"_SM_{arch_list}::versioned_fill"),
               f"{args}: kernels {sorted(ks)}, wanted the namespace of SM_{arch_list}")
    if not os.access(nvcc, os.X_OK):
        print(f"note: no {nvcc}: the namespace not compared with a cubin's")
        return
    # The mangled name is the one nvcc gives the kernel in the code object.
    cubin = os.path.join(work, "cub_namespace.cubin")
    run([nvcc, "-cubin", "-arch=sm_90", "-o", cubin, src])
    doc, ks = kernels(rocm_perf, ["--arch", "sm_90", src])
    mangled = [k["mangled"] for k in doc["kernels"] if k["name"] == "versioned_fill"]
    with open(cubin, "rb") as f:
        held = f.read()
    expect(len(mangled) == 1 and mangled[0].encode() in held,
           f"{mangled} is not a symbol of nvcc's cubin")


def check_openmp(rocm_perf, real):
    """A build with OpenMP on the host: the host compiler's omp.h is found, as nvcc's gcc
    finds it; without -fopenmp, or with a host compiler that is not there, it is not."""
    gcc = subprocess.run(["gcc", "-print-file-name=omp.h"], capture_output=True, text=True)
    if gcc.returncode != 0 or not os.path.isfile(gcc.stdout.strip()):
        print("note: gcc has no omp.h here: the OpenMP folder not checked")
        return

    def errors(build):
        doc, _ = kernels(rocm_perf, (["--build", build] if build else []) + ["openmp_host.cu"],
                         cwd=real)
        return doc["diagnostics"]

    if errors(None)["errors"] == 0:
        # libclang's own resource folder has an omp.h (LLVM's libomp installed with it).
        print("note: libclang finds omp.h by itself: the host compiler's not needed")
        return
    for build in ("nvcc -Xcompiler -fopenmp -arch=sm_90 -c openmp_host.cu",
                  "nvcc -Xcompiler=-O3,-fopenmp -arch=sm_90 -c openmp_host.cu",
                  "nvcc -ccbin gcc --compiler-options '-Wall -fopenmp' -c openmp_host.cu",
                  "clang++ -x cuda -fopenmp=libgomp -c openmp_host.cu"):
        d = errors(build)
        expect(d["errors"] == 0, f"{build}: {d['first']}")
    for build in ("nvcc -Xcompiler -fopenmp-simd -c openmp_host.cu",
                  "nvcc -ccbin /nonexistent/gcc -Xcompiler -fopenmp -c openmp_host.cu"):
        d = errors(build)
        expect(d["errors"] > 0 and "'omp.h' file not found" in d["first"][0]["message"],
               f"{build}: omp.h found without the host compiler's OpenMP: {d}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
