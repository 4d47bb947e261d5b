/*
 * catalog/notes.h: baselines in git notes (`record --git`), so that they
 * travel with the repository through any remote, as tak keeps its results.
 *
 * Each baseline is one JSON line (notes_baseline_encode) in the note of the
 * commit it was measured on, under refs/notes/lauka; the lines of one note
 * are kept sorted and unique, so notes written by several machines merge
 * with `git notes --ref=lauka merge -s cat_sort_uniq` without conflict.  One
 * name may have one line per runner class on a commit.  lauka runs `git` as
 * a subprocess in the working directory and never pushes or fetches.
 */
#ifndef LAUKA_NOTES_H
#define LAUKA_NOTES_H

#include <stddef.h>

#include "catalog/db.h"

#define NOTES_REF "refs/notes/lauka"

/* One baseline as one JSON line (no newline), malloc'd.  The format of `lauka baselines --git show`. */
char *notes_baseline_encode(const struct db_baseline *b);
/* Parse a line made by notes_baseline_encode; -LK_EINVAL with a reason when it is not one. */
int notes_baseline_decode(const char *line, size_t len, struct db_baseline *out, char *err, size_t errlen);

/* A baseline found in the notes, with the commit whose note holds it. */
struct notes_hit {
	char commit[65];
	struct db_baseline b;
};
void notes_hits_free(struct notes_hit *h, size_t n);

/*
 * Every baseline called name in the note of one commit: rev's (a revision
 * git understands) when rev is not NULL, else the nearest first-parent
 * ancestor of HEAD whose note holds name for runner_class (HEAD itself
 * excluded unless include_head).  Without such a commit, the lines named
 * name of every runner class in those ancestors (so the caller can say
 * which classes exist), and *found 0.  0, or -LK_E* with a reason (not a
 * git repository, no such revision, git missing).
 */
int notes_find(const char *name, const char *rev, const char *runner_class, int include_head, struct notes_hit **out,
	       size_t *n, int *found, char *err, size_t errlen);

/*
 * Store b in HEAD's note, replacing a line with the same name and runner
 * class; the note commit on refs/notes/lauka says so.  commit receives
 * HEAD's id.  0 or -LK_E*.
 */
int notes_save(const struct db_baseline *b, char commit[65], char *err, size_t errlen);

/* Every baseline in every note (no particular order), commit by commit. */
int notes_list(struct notes_hit **out, size_t *n, char *err, size_t errlen);

/*
 * Remove the lines named name (of every runner class) from rev's note
 * (HEAD's when rev is NULL); *removed says how many.  0, or -LK_ENOENT when
 * the note holds none, or another -LK_E*.
 */
int notes_delete(const char *name, const char *rev, size_t *removed, char *err, size_t errlen);

/* Is the working directory in a git repository (and git in PATH)?  0, or -LK_E* with a reason. */
int notes_check_repo(char *err, size_t errlen);

#endif
