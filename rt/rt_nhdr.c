/* rt_nhdr.c -- a detached header (".nhdr") and its data file, replaced
 * together: a reader (or a run killed at any moment) finds the old pair or
 * the complete new one, never a header with data of another write.
 *
 * Two renames cannot be one, so the header is the commit point: the new
 * data goes to a name the old header does not use, and the new header,
 * renamed over the old one, is the moment the new pair appears. The names
 * alternate: the data of OUT.nhdr is OUT.raw, or OUT.1.raw when the old
 * header uses OUT.raw (Teem names the data file after the header it
 * writes: OUT.1.nhdr -> "data file: ./OUT.1.raw", a name relative to the
 * header that survives the header's rename). Both files are first written
 * by Teem into a private directory beside the target
 * (OUT.nhdr.diderot-PID-K.tmp/, which drt_tmp_sweep removes when its
 * process is gone); then the data file is renamed into place (the old pair
 * is untouched), then the header (the commit), and then the old data file
 * is removed when it is one of these two names. A kill between the renames
 * leaves one complete data file that no header names (OUT.raw or
 * OUT.1.raw), which the next save replaces. Through a symbolic link the
 * header replaced is the link's target (the link stays a link), and the
 * data file goes beside the link, as Teem would put it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <teem/biff.h>

#include "rt_internal.h"

/* The data file the header at path names (malloc'd, without a leading
 * "./"), or NULL (no header, not ours to read, several files, a path). */
static char *data_file_of(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  char line[PATH_MAX + 32], *v = NULL;
  /* the header ends at the first empty line (or its data, attached) */
  for (int k = 0; k < 4096 && fgets(line, sizeof line, f) && line[0] != '\n'; k++) {
    const char *key = strncmp(line, "data file:", 10) == 0  ? line + 10
                      : strncmp(line, "datafile:", 9) == 0 ? line + 9
                                                           : NULL;
    if (!key) continue;
    while (*key == ' ') key++;
    if (strncmp(key, "./", 2) == 0) key += 2;
    size_t n = strcspn(key, "\r\n");
    if (n && !memchr(key, '/', n) && !memchr(key, ' ', n)) v = strndup(key, n);
    break;
  }
  fclose(f);
  return v;
}

/* Whether name is STEM.something. */
static bool of_stem(const char *name, const char *stem) {
  size_t n = strlen(stem);
  return strncmp(name, stem, n) == 0 && name[n] == '.';
}

/* Remove the private directory (its regular files, then itself). */
static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    for (struct dirent *ent; (ent = readdir(d));)
      if (strcmp(ent->d_name, ".") && strcmp(ent->d_name, ".."))
        (void)unlinkat(dirfd(d), ent->d_name, 0);
    closedir(d);
  }
  (void)rmdir(dir);
}

/* The one entry of dir other than `except` (malloc'd), or NULL. */
static char *other_entry(const char *dir, const char *except) {
  DIR *d = opendir(dir);
  if (!d) return NULL;
  char *found = NULL;
  int n = 0;
  for (struct dirent *ent; (ent = readdir(d));) {
    if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, "..") || !strcmp(ent->d_name, except))
      continue;
    if (!n++) found = strdup(ent->d_name);
  }
  closedir(d);
  if (n != 1) {
    free(found);
    return NULL;
  }
  return found;
}

static char *join(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s/%s", dir, name);
  return s;
}

bool drt_nhdr_save(DrtErrors *e, const char *what, const char *file, const Nrrd *nrrd,
                   NrrdIoState *nio) {
  /* through a link to the header it names (a link stays a link) */
  struct stat st;
  bool magic = false;
  errno = 0;
  char *hdr = lstat(file, &st) == 0 && S_ISLNK(st.st_mode) ? drt_output_follow_links(file, &magic)
                                                           : strdup(file);
  if (!hdr || magic) {
    /* (/dev/stdout and the like: a header there could not name its data) */
    drt_error_at(e, what, file, "cannot write the output: %s",
                 magic ? "a detached header must be a file" : strerror(errno ? errno : ENOMEM));
    free(hdr);
    return true;
  }
  /* the data file goes beside the name given, where a reader of that
   * name finds it (Teem resolves "./NAME" against the header's path as
   * opened, not through the link) */
  const char *slash = strrchr(file, '/');
  char *dir = slash ? strndup(file, slash == file ? 1 : (size_t)(slash - file)) : strdup(".");
  const char *base = slash ? slash + 1 : file;
  char *stem = strndup(base, strlen(base) - 5); /* less ".nhdr" */
  char *alt = NULL, *tmp = NULL, *tmphdr = NULL, *tmpdata = NULL, *data = NULL, *dst = NULL;
  char *old = data_file_of(file);
  bool err = true;
  if (!dir || !stem) goto oom;
  drt_tmp_sweep(file);
  /* the data name the old header does not use */
  size_t an = strlen(stem) + 3;
  if (!(alt = malloc(an))) goto oom;
  snprintf(alt, an, "%s.1", stem);
  const char *newstem = old && of_stem(old, stem) && !of_stem(old, alt) ? alt : stem;
  size_t hn = strlen(newstem) + 6;
  char hname[PATH_MAX];
  if (hn > sizeof hname) goto oom;
  snprintf(hname, sizeof hname, "%s.nhdr", newstem);
  for (unsigned k = 0; !tmp && k < 100; k++) {
    char *t = drt_tmp_name(file, k);
    if (!t) goto oom;
    if (mkdir(t, 0700) == 0) tmp = t;
    else {
      int saved = errno;
      free(t);
      if (saved != EEXIST) {
        drt_error_at(e, what, file, "cannot write the output: %s", strerror(saved));
        goto out;
      }
    }
  }
  if (!tmp || !(tmphdr = join(tmp, hname))) goto oom;
  if (nrrdSave(tmphdr, nrrd, nio)) {
    drt_error_biff(e, what, file, "cannot write the output", NRRD);
    goto out;
  }
  if (drt_interrupted()) {
    drt_error_at(e, what, file, "not written: stopped by %s", drt_signal_name(drt_interrupted()));
    goto out;
  }
  if (!(data = other_entry(tmp, hname))) {
    drt_error_at(e, what, file, "cannot write the output: no single data file (internal error)");
    goto out;
  }
  if (!(tmpdata = join(tmp, data)) || !(dst = join(dir, data))) goto oom;
  if (rename(tmpdata, dst) != 0 || rename(tmphdr, hdr) != 0) {
    drt_error_at(e, what, file, "cannot write the output: %s", strerror(errno));
    goto out;
  }
  err = false;
  /* the old data file, now named by no header (only the two names of
   * ours: never a file of someone else's header) */
  if (old && of_stem(old, stem) && strcmp(old, data) != 0) {
    char *o = join(dir, old);
    if (o && lstat(o, &st) == 0 && S_ISREG(st.st_mode)) (void)unlink(o);
    free(o);
  }
  goto out;
oom:
  drt_error_at(e, what, file, "cannot write the output: out of memory");
out:
  if (tmp) remove_dir(tmp);
  free(hdr);
  free(dir);
  free(stem);
  free(alt);
  free(old);
  free(tmp);
  free(tmphdr);
  free(tmpdata);
  free(data);
  free(dst);
  return err;
}
