/* cc.c -- running the system C compiler on generated code (see cc.h). */
#include "backend/cc.h"

/* A variable of the environment the driver read (CcEnv); NULL: unset. */
#define CC_ENV(ev, field) ((ev) ? (ev)->field : NULL)

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"

#ifndef DIDEROT_PREFIX
#define DIDEROT_PREFIX "/usr/local"
#endif
/* The configured installation directories (Makefile.am), with make's
 * variables expanded: the runtime's place in an install. */
#ifndef DIDEROT_BINDIR
#define DIDEROT_BINDIR DIDEROT_PREFIX "/bin"
#endif
#ifndef DIDEROT_LIBDIR
#define DIDEROT_LIBDIR DIDEROT_PREFIX "/lib"
#endif
#ifndef DIDEROT_INCLUDEDIR
#define DIDEROT_INCLUDEDIR DIDEROT_PREFIX "/include"
#endif
#ifndef DIDEROT_CC
#define DIDEROT_CC "cc"
#endif

/* CcRequest.large: the passes whose time grows fastest with one
 * function's size. gcc -ftime-report on a 5,000-statement straight-line
 * update (a big probe of a 3-D tensor field): global CSE/PRE 4 s, CSE
 * after reload 2.5 s, the CSE reruns 3 s, dead stores 3 s of 16 s; the
 * tree-level CSE, PRE and dead-code passes still run. On the structured C
 * of a branchy function inlined N times (issue 37's family, bench/compile),
 * gcc 12 -O3 took at N = 128 / 512: 2.1 / 21.3 s; without jump threading
 * 1.0 / 5.9 s; with these flags too 0.7 / 4.3 s (jump threading of the
 * long else-if chains, with its incremental SSA updates, was most of it:
 * bench/results.md, "Compile time: structured C"). */
#define CC_LARGE_FLAGS                                                                   \
  "-fno-gcse -fno-gcse-after-reload -fno-dse -fno-tree-dse -fno-rerun-cse-after-loop " \
  "-fno-cse-follow-jumps -fno-thread-jumps"

/* "-O3" (the default) or the level asked for (-O0 .. -O3). */
static const char *cc_opt_level(const CcRequest *req) { return req->opt_flag ? req->opt_flag : "-O3"; }

/* The optimisation flags when $CFLAGS_DIDEROT does not replace them. */
static const char *cc_opt_flags(Arena *a, const CcRequest *req) {
  return arena_printf(a, "%s -march=native", cc_opt_level(req));
}

static bool cc_is_file(const char *p) {
  struct stat st;
  return p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The first of dirs[] that contains `file`. */
static const char *cc_dir_with(Arena *a, const char *const *dirs, int n, const char *file) {
  for (int i = 0; i < n; i++)
    if (dirs[i] && cc_is_file(arena_printf(a, "%s/%s", dirs[i], file))) return dirs[i];
  return NULL;
}

/* The directory of the running executable (Linux /proc), or NULL. */
static const char *cc_self_dir(Arena *a) {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return NULL;
  buf[n] = '\0';
  char *slash = strrchr(buf, '/');
  if (!slash) return NULL;
  *slash = '\0';
  return arena_strdup(a, buf[0] ? buf : "/");
}

/* Whether the directories a and b are the same one (the same inode, so that
 * a build tree reached through a symbolic link matches). */
static bool cc_same_dir(const char *a, const char *b) {
  struct stat sa, sb;
  return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

/* Whether `path` is `dir` or inside it. */
static bool cc_under(const char *path, const char *dir) {
  size_t n = strlen(dir);
  return path && !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

/* The length of `suffix` when the directory `path` ends with it (suffix
 * is absolute, so the match starts at a component: "/tmp/d/usr/local/bin"
 * ends with "/usr/local/bin"), else 0. */
static size_t cc_ends_with_dir(const char *path, const char *suffix) {
  size_t n = strlen(path), k = strlen(suffix);
  if (k == 0 || suffix[0] != '/' || k > n || strcmp(path + n - k, suffix)) return 0;
  return k;
}

/* Library and header directories of an installed runtime, if both hold it. */
static bool cc_try(Arena *a, const char *libdir, const char *incdir, const char **lib,
                   const char **inc) {
  if (!libdir || !incdir) return false;
  const char *l = cc_dir_with(a, &libdir, 1, "libdiderot-rt.a");
  const char *i = cc_dir_with(a, &incdir, 1, "diderot_world.h");
  if (!l || !i) return false;
  *lib = l;
  *inc = i;
  return true;
}

/* The runtime that belongs to this diderotc, so that an installed compiler
 * never picks up a build tree that happens to exist, and a build tree's
 * compiler never an older installed runtime (the order is documented in
 * cc.h, doc/user-guide.md and doc/diderotc.1):
 *   1. $DIDEROT_RT_DIR (the library in DIR or DIR/lib; headers in
 *      DIR/include/diderot, DIR/rt or this build's source tree);
 *   2. BUILD/diderotc itself, the compiler of the build tree it was built
 *      in (exactly that directory, not one below it: an install under the
 *      build tree, as the tests make, is an installed compiler): that
 *      tree's library and the source tree's rt/ headers;
 *   3. installed: the configured layout taken relative to the running
 *      executable, whose directory BIN ends with the configured bindir
 *      (ROOT/PREFIX/bin with ROOT the DESTDIR of a staged install, empty
 *      for a plain one): ROOT/LIBDIR and ROOT/INCLUDEDIR/diderot; then
 *      BIN/../lib and BIN/../include/diderot (an installed tree moved
 *      elsewhere as a whole);
 *   4. another program inside the build tree (a unit test): that tree;
 *   5. the configured LIBDIR and INCLUDEDIR/diderot. */
bool cc_find_runtime(Arena *a, const CcEnv *ev, const char **incdir, const char **libdir) {
  const char *env = CC_ENV(ev, rt_dir);
  const char *lib = NULL, *inc = NULL;
#ifdef DIDEROT_SOURCE_DIR
  const char *src_rt = DIDEROT_SOURCE_DIR "/rt";
#else
  const char *src_rt = NULL;
#endif
  const char *self = cc_self_dir(a);
  if (env && *env) {
    const char *libs[] = {env, arena_printf(a, "%s/lib", env)};
    const char *incs[] = {arena_printf(a, "%s/include/diderot", env), arena_printf(a, "%s/rt", env),
                          src_rt};
    lib = cc_dir_with(a, libs, 2, "libdiderot-rt.a");
    inc = cc_dir_with(a, incs, 3, "diderot_world.h");
    if (lib && inc) goto found;
  }
#ifdef DIDEROT_BUILD_DIR
  if (cc_same_dir(self, DIDEROT_BUILD_DIR) && cc_try(a, DIDEROT_BUILD_DIR, src_rt, &lib, &inc))
    goto found;
#endif
  if (self) {
    size_t k = cc_ends_with_dir(self, DIDEROT_BINDIR);
    if (k) {
      const char *root = arena_strndup(a, self, strlen(self) - k);
      if (cc_try(a, arena_printf(a, "%s%s", root, DIDEROT_LIBDIR),
                 arena_printf(a, "%s%s/diderot", root, DIDEROT_INCLUDEDIR), &lib, &inc))
        goto found;
    }
    /* BIN/.. written as the parent's path (BIN is resolved: no links) */
    const char *slash = strrchr(self, '/');
    const char *up = slash ? arena_strndup(a, self, (size_t)(slash - self)) : "..";
    if (cc_try(a, arena_printf(a, "%s/lib", up), arena_printf(a, "%s/include/diderot", up), &lib,
               &inc))
      goto found;
  }
#ifdef DIDEROT_BUILD_DIR
  /* other programs of the build tree (tests/unit/test_emit) */
  if (cc_under(self, DIDEROT_BUILD_DIR) && cc_try(a, DIDEROT_BUILD_DIR, src_rt, &lib, &inc))
    goto found;
#endif
  if (cc_try(a, DIDEROT_LIBDIR, DIDEROT_INCLUDEDIR "/diderot", &lib, &inc)) goto found;
  *incdir = *libdir = NULL;
  return false;
found:
  *incdir = inc;
  *libdir = lib;
  return true;
}

/* Whether the first word of `cmd` names a program that can be run: a path,
 * or a name found on $PATH. */
static bool cc_tool_exists(Arena *a, const CcEnv *ev, const char *cmd) {
  while (*cmd == ' ' || *cmd == '\t') cmd++;
  size_t n = strcspn(cmd, " \t");
  if (n == 0) return false;
  const char *prog = arena_strndup(a, cmd, n);
  if (strchr(prog, '/')) return access(prog, X_OK) == 0;
  const char *path = CC_ENV(ev, path);
  if (!path || !*path) path = "/usr/bin:/bin";
  for (const char *p = path;;) {
    size_t k = strcspn(p, ":");
    const char *dir = k ? arena_strndup(a, p, k) : ".";
    if (cc_is_file(arena_printf(a, "%s/%s", dir, prog)) &&
        access(arena_printf(a, "%s/%s", dir, prog), X_OK) == 0)
      return true;
    if (!p[k]) return false;
    p += k + 1;
  }
}

static const char *cc_nvcc(const CcEnv *ev) {
  const char *nvcc = CC_ENV(ev, nvcc);
#ifdef DIDEROT_NVCC
  if (!nvcc || !*nvcc) nvcc = DIDEROT_NVCC;
#endif
  return nvcc && *nvcc ? nvcc : "nvcc";
}

static const char *cc_c_compiler(const CcEnv *ev) {
  const char *cc = CC_ENV(ev, cc);
  return cc && *cc ? cc : DIDEROT_CC;
}

bool cc_preflight(Arena *a, const CcRequest *req, const char **why) {
  const char *inc, *lib;
  if (!cc_find_runtime(a, req->env, &inc, &lib)) {
    const char *self = cc_self_dir(a);
    *why = arena_printf(a,
                        "cannot find the Diderot runtime (libdiderot-rt.a and its headers) beside "
                        "this diderotc (%s/../lib) or in %s; reinstall diderotc (make install), "
                        "or set DIDEROT_RT_DIR to the directory that holds libdiderot-rt.a",
                        self ? self : "?", DIDEROT_LIBDIR);
    return false;
  }
  const char *cc = cc_c_compiler(req->env);
  if (!cc_tool_exists(a, req->env, cc)) {
    *why = arena_printf(a, "cannot find the C compiler '%s' (Debian package: gcc; or set CC)", cc);
    return false;
  }
  if (req->mpi) {
#ifndef DIDEROT_MPI_LIBS
    *why = "--target=mpi: MPI was not found when diderotc was configured (Debian packages: "
           "libopenmpi-dev, openmpi-bin; then configure and build diderotc again)";
    return false;
#else
    if (!cc_dir_with(a, &lib, 1, "libdiderot-rt-mpi.a")) {
      *why = arena_printf(a, "--target=mpi: cannot find the runtime's MPI part "
                             "(libdiderot-rt-mpi.a) in %s", lib);
      return false;
    }
#endif
  }
  if (req->cu_file || req->cuda_target) {
    if (req->cuda_emulate) {
      const char *cxx = CC_ENV(req->env, cxx);
      if (!cxx || !*cxx) cxx = "c++";
      if (!cc_tool_exists(a, req->env, cxx)) {
        *why = arena_printf(a, "cannot find the C++ compiler '%s' that --cuda-emulate uses "
                               "(Debian package: g++; or set CXX)", cxx);
        return false;
      }
    } else if (!cc_tool_exists(a, req->env, cc_nvcc(req->env))) {
      *why = arena_printf(a,
                          "cannot find the CUDA compiler '%s' that --target=cuda needs: install "
                          "NVIDIA's CUDA toolkit (it puts nvcc in /usr/local/cuda/bin) or set "
                          "DIDEROT_NVCC to nvcc's path",
                          cc_nvcc(req->env));
      return false;
    }
  }
  return true;
}

/* Words of a command-line string (split at blanks; no quoting). */
typedef struct Argv {
  Arena *a;
  const char **v;
  int n, cap;
} Argv;

static void argv_add(Argv *av, const char *s) {
  if (av->n + 2 > av->cap) {
    int cap = av->cap ? 2 * av->cap : 32;
    const char **v = arena_alloc(av->a, (size_t)cap * sizeof *v);
    if (av->n) memcpy(v, av->v, (size_t)av->n * sizeof *v);
    av->v = v;
    av->cap = cap;
  }
  av->v[av->n++] = s;
  av->v[av->n] = NULL;
}

static void argv_split(Argv *av, const char *s) {
  while (s && *s) {
    while (*s == ' ' || *s == '\t') s++;
    const char *e = s;
    while (*e && *e != ' ' && *e != '\t') e++;
    if (e > s) argv_add(av, arena_strndup(av->a, s, (size_t)(e - s)));
    s = e;
  }
}

/* Run av; true when it exited with status 0. The command goes to stderr
 * (verbose) and to the compiler log (--log), with its exit status. */
static bool cc_run(const Argv *av, const CcRequest *req, const char **why) {
  if (req->verbose) {
    for (int i = 0; i < av->n; i++) fprintf(stderr, "%s%s", i ? " " : "", av->v[i]);
    fputc('\n', stderr);
  }
  if (req->log) {
    fputs("cc:", req->log);
    for (int i = 0; i < av->n; i++) fprintf(req->log, " %s", av->v[i]);
    fputc('\n', req->log);
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    if (why) *why = "cannot start the C compiler (fork failed)";
    return false;
  }
  if (pid == 0) {
    execvp(av->v[0], (char *const *)av->v);
    fprintf(stderr, "diderotc: cannot run '%s': %s\n", av->v[0], strerror(errno));
    _exit(127);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return false;
  bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
  if (req->log) {
    if (WIFEXITED(st)) fprintf(req->log, "cc: exit status %d\n", WEXITSTATUS(st));
    else fprintf(req->log, "cc: killed by signal %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  }
  return ok;
}

/* Makes every global symbol of relocatable object `out` local except the
 * library API's (export_prefix*): each library object carries its own copy
 * of the runtime, and two of them must link into one program. Undefined
 * symbols (Teem, libm, libc) stay as they are. */
static bool cc_localize_runtime(Arena *a, const CcRequest *req, const char **why) {
  if (!req->export_prefix || !*req->export_prefix) return true;
  const char *objcopy = CC_ENV(req->env, objcopy);
  Argv oc = {a, NULL, 0, 0};
  argv_split(&oc, objcopy && *objcopy ? objcopy : "objcopy");
  argv_add(&oc, "--wildcard");
  argv_add(&oc, arena_printf(a, "--keep-global-symbol=%s*", req->export_prefix));
  argv_add(&oc, req->out_file);
  return cc_run(&oc, req, why);
}

/* --target=cuda: the host half with the C compiler, the device half with
 * nvcc or (emulation) the C++ compiler, then one link (see cc.h). */
static bool cc_compile_cuda(Arena *a, const CcRequest *req, const char *inc, const char *lib,
                            const char **why) {
  const char *cc = CC_ENV(req->env, cc), *flags = CC_ENV(req->env, cflags);
  const char *cxx = CC_ENV(req->env, cxx), *nvcc = cc_nvcc(req->env);
  if (!cxx || !*cxx) cxx = "c++";
  bool pic = req->kind != CC_EXEC, emu = req->cuda_emulate;
  const char *host_o = arena_printf(a, "%s.host.o", req->out_file);
  const char *dev_o = arena_printf(a, "%s.dev.o", req->out_file);
  /* the host half: as for the C targets */
  Argv h = {a, NULL, 0, 0};
  argv_split(&h, cc && *cc ? cc : DIDEROT_CC);
  argv_add(&h, "-std=gnu11");
  argv_add(&h, "-fwrapv");
  if (req->no_contract) argv_add(&h, "-ffp-contract=off");
  if (req->debug) argv_add(&h, "-g"), argv_add(&h, "-O0");
  else argv_split(&h, flags ? flags : cc_opt_flags(a, req));
  argv_split(&h, CC_ENV(req->env, cflags_extra)); /* e.g. sanitizers (cc.h) */
  if (pic) argv_add(&h, "-fPIC");
  argv_add(&h, arena_printf(a, "-I%s", inc));
  for (int i = 0; i < req->ndefines; i++) argv_add(&h, arena_printf(a, "-D%s", req->defines[i]));
  argv_add(&h, "-c");
  argv_add(&h, req->c_file);
  argv_add(&h, "-o");
  argv_add(&h, host_o);
  if (!cc_run(&h, req, why)) return false;
  /* the device half */
  Argv d = {a, NULL, 0, 0};
  if (emu) {
    argv_split(&d, cxx);
    argv_add(&d, "-x");
    argv_add(&d, "c++");
    argv_add(&d, "-std=gnu++17");
    argv_add(&d, "-fwrapv");
    argv_add(&d, "-DDIDEROT_CUDA_EMULATE");
    /* the C target's flags: same contractions, so bitwise comparable */
    if (req->debug) argv_add(&d, "-g"), argv_add(&d, "-O0");
    else argv_split(&d, flags ? flags : cc_opt_flags(a, req));
    argv_split(&d, CC_ENV(req->env, cflags_extra));
    if (pic) argv_add(&d, "-fPIC");
  } else {
    argv_split(&d, nvcc);
    argv_add(&d, "-std=c++17");
    /* unused helpers and (void)-ed prologue variables of generated code */
    argv_add(&d, "-diag-suppress=177,550");
    argv_add(&d, req->debug ? "-G" : cc_opt_level(req));
    if (req->debug) argv_add(&d, "-g");
    const char *arch = CC_ENV(req->env, cuda_arch);
    if (!arch || !*arch) arch = "sm_90";
    /* sm_XX: SASS for XX and PTX for the newest one listed */
    const char *last = NULL;
    for (const char *p = arch; *p;) {
      const char *q = strchr(p, ',');
      size_t n = q ? (size_t)(q - p) : strlen(p);
      if (n > 3 && !strncmp(p, "sm_", 3)) {
        const char *num = arena_strndup(a, p + 3, n - 3);
        argv_add(&d, "-gencode");
        argv_add(&d, arena_printf(a, "arch=compute_%s,code=sm_%s", num, num));
        last = num;
      } else if (n) {
        if (why) *why = "DIDEROT_CUDA_ARCH must list sm_XX names separated by commas";
        return false;
      }
      p += n + (q != NULL);
    }
    if (last) {
      argv_add(&d, "-gencode");
      argv_add(&d, arena_printf(a, "arch=compute_%s,code=compute_%s", last, last));
    }
    if (pic) argv_add(&d, "-Xcompiler"), argv_add(&d, "-fPIC");
  }
  argv_add(&d, arena_printf(a, "-I%s", inc));
  for (int i = 0; i < req->ndefines; i++) argv_add(&d, arena_printf(a, "-D%s", req->defines[i]));
  argv_add(&d, "-c");
  argv_add(&d, req->cu_file);
  argv_add(&d, "-o");
  argv_add(&d, dev_o);
  bool ok = cc_run(&d, req, why);
  /* one link: nvcc adds the CUDA runtime, the C++ compiler its library */
  if (ok) {
    Argv l = {a, NULL, 0, 0};
    if (req->kind == CC_OBJECT) {
      argv_split(&l, cc && *cc ? cc : DIDEROT_CC);
      argv_add(&l, "-r");
      argv_add(&l, "-nostdlib");
    } else {
      argv_split(&l, emu ? cxx : nvcc);
      const char *extra = CC_ENV(req->env, cflags_extra);
      if (emu) argv_split(&l, extra);
      /* nvcc cannot hand -fsanitize to the host compiler when it links:
       * name the sanitizers' runtimes (the runtime library has them) */
      if (!emu && extra && strstr(extra, "-fsanitize=")) {
        if (strstr(extra, "address")) argv_add(&l, "-lasan");
        if (strstr(extra, "undefined")) argv_add(&l, "-lubsan");
      }
      if (req->kind == CC_SHARED) argv_add(&l, "-shared");
    }
    argv_add(&l, "-o");
    argv_add(&l, req->out_file);
    argv_add(&l, host_o);
    argv_add(&l, dev_o);
    if (req->kind == CC_OBJECT) {
      argv_add(&l, arena_printf(a, "%s/libdiderot-rt.a", lib));
    } else {
      if (req->kind == CC_SHARED) argv_add(&l, emu ? "-Wl,--exclude-libs,libdiderot-rt.a"
                                                   : "-Xlinker=--exclude-libs,libdiderot-rt.a");
      argv_add(&l, arena_printf(a, "-L%s", lib));
      argv_add(&l, "-ldiderot-rt");
      argv_add(&l, "-lteem");
      argv_add(&l, "-lm");
    }
    ok = cc_run(&l, req, why);
    if (ok && req->kind == CC_OBJECT) ok = cc_localize_runtime(a, req, why);
  }
  remove(host_o);
  remove(dev_o);
  return ok;
}

bool cc_compile(Arena *a, const CcRequest *req, const char **why) {
  const char *inc, *lib;
  if (why) *why = NULL;
  if (!cc_find_runtime(a, req->env, &inc, &lib)) {
    if (why) *why = "cannot find the Diderot runtime (set DIDEROT_RT_DIR)";
    return false;
  }
  if (req->cu_file) return cc_compile_cuda(a, req, inc, lib, why);
  const char *cc = CC_ENV(req->env, cc);
  const char *flags = CC_ENV(req->env, cflags);
  Argv av = {a, NULL, 0, 0};
  argv_split(&av, cc && *cc ? cc : DIDEROT_CC);
  argv_add(&av, "-std=gnu11");
  argv_add(&av, "-fwrapv");
  if (req->no_contract) argv_add(&av, "-ffp-contract=off");
  if (req->debug) argv_add(&av, "-g"), argv_add(&av, "-O0");
  else argv_split(&av, flags ? flags : cc_opt_flags(a, req));
  /* gcc's pass names: clang (the sanitizer builds' compiler) has none of
   * these passes and refuses the flags */
  const char *cc0 = av.n ? av.v[0] : "";
  const char *base = strrchr(cc0, '/');
  bool clang = strstr(base ? base + 1 : cc0, "clang") != NULL;
  if (req->large && !req->debug && !clang && strcmp(cc_opt_level(req), "-O2") >= 0)
    argv_split(&av, CC_LARGE_FLAGS); /* the passes of -O2 and above */
  argv_split(&av, CC_ENV(req->env, cflags_extra)); /* e.g. sanitizers (cc.h) */
  if (req->openmp) argv_add(&av, "-fopenmp");
#ifdef DIDEROT_MPI_CFLAGS
  if (req->mpi) argv_split(&av, DIDEROT_MPI_CFLAGS);
#endif
  if (req->kind != CC_EXEC) argv_add(&av, "-fPIC");
  argv_add(&av, arena_printf(a, "-I%s", inc));
  for (int i = 0; i < req->ndefines; i++) argv_add(&av, arena_printf(a, "-D%s", req->defines[i]));
  if (req->kind == CC_OBJECT) {
    /* compile, then merge with the runtime members it needs */
    const char *tmp = arena_printf(a, "%s.tmp.o", req->out_file);
    argv_add(&av, "-c");
    argv_add(&av, req->c_file);
    argv_add(&av, "-o");
    argv_add(&av, tmp);
    if (!cc_run(&av, req, why)) return false;
    Argv ld = {a, NULL, 0, 0};
    argv_split(&ld, cc && *cc ? cc : DIDEROT_CC);
    argv_add(&ld, "-r");
    argv_add(&ld, "-nostdlib");
    argv_add(&ld, "-o");
    argv_add(&ld, req->out_file);
    argv_add(&ld, tmp);
    if (req->mpi) argv_add(&ld, arena_printf(a, "%s/libdiderot-rt-mpi.a", lib));
    argv_add(&ld, arena_printf(a, "%s/libdiderot-rt.a", lib));
    bool ok = cc_run(&ld, req, why) && cc_localize_runtime(a, req, why);
    remove(tmp);
    return ok;
  }
  if (req->kind == CC_SHARED) {
    argv_add(&av, "-shared");
    argv_add(&av, "-Wl,--exclude-libs,libdiderot-rt.a:libdiderot-rt-mpi.a"); /* see export_prefix */
  }
  argv_add(&av, req->c_file);
  argv_add(&av, "-o");
  argv_add(&av, req->out_file);
  argv_add(&av, arena_printf(a, "-L%s", lib));
  if (req->mpi) argv_add(&av, "-ldiderot-rt-mpi"); /* before the runtime it calls */
  argv_add(&av, "-ldiderot-rt");
  argv_add(&av, "-lteem");
#ifdef DIDEROT_MPI_LIBS
  if (req->mpi) argv_split(&av, DIDEROT_MPI_LIBS);
#endif
  argv_add(&av, "-lm");
  return cc_run(&av, req, why);
}
