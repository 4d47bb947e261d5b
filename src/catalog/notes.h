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

#include <stdbool.h>
#include <stddef.h>

#include "catalog/db.h"

#define NOTES_REF "refs/notes/lauka"

/*
 * Notes are written by anyone who can push: lauka reads them as untrusted
 * input, within these bounds (doc/ci.md).  A note larger than NOTES_MAX_NOTE
 * is not read (a warning names its commit) and not rewritten; a line over
 * NOTES_MAX_LINE, or with more measurements, commands or runs than the
 * limits below, is skipped with a warning like any other line that is not
 * a valid baseline.  One list or walk reads at most NOTES_MAX_WALK bytes of
 * notes (the nearest first), so a history of large notes stays quick.
 */
#define NOTES_MAX_NOTE (1u << 20)	/* bytes of one note */
#define NOTES_MAX_WALK (64u << 20)	/* bytes of all notes one list or walk reads */
#define NOTES_MAX_LINE NOTES_MAX_NOTE	/* bytes of one baseline line */
#define NOTES_MAX_STRING 65536		/* bytes of one string (a command) */
#define NOTES_MAX_MEAS 1024
#define NOTES_MAX_CMDS 1024
#define NOTES_MAX_RUNS 1000000

/* One baseline as one JSON line (no newline), malloc'd.  The format of `lauka baselines --git show`. */
char *notes_baseline_encode(const struct db_baseline *b);
/*
 * Parse a line made by notes_baseline_encode (catalog/notes-json.c): every
 * value checked (finite, not negative, runs the count of the samples, no
 * NUL, no duplicate key); -LK_EINVAL with a reason when it is not one.
 */
int notes_baseline_decode(const char *line, size_t len, struct db_baseline *out, char *err, size_t errlen);

/* s with control characters (C0, DEL, C1) shown as \xHH, for a terminal; malloc'd ("" for NULL). */
char *notes_printable(const char *s);
/* Every string of b replaced by its printable form (a baseline from a note, before it is shown). */
void notes_baseline_printable(struct db_baseline *b);

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

/* How many lines that may have been name's the last notes_find skipped as not valid (each with a warning). */
size_t notes_find_skipped(void);

/*
 * Store b in HEAD's note, replacing a line with the same name and runner
 * class; every other line is kept byte for byte.  The new notes commit
 * replaces refs/notes/lauka only if the ref still is what was read
 * (`git update-ref REF NEW OLD`); when another save got there first, the
 * note is read again and the save retried, so concurrent saves keep every
 * line.  commit receives HEAD's id.  0 or -LK_E*.
 */
int notes_save(const struct db_baseline *b, char commit[65], char *err, size_t errlen);

/* Every baseline in every note (no particular order), commit by commit. */
int notes_list(struct notes_hit **out, size_t *n, char *err, size_t errlen);

/*
 * Remove the lines named name of runner_class from rev's note (HEAD's when
 * rev is NULL); *removed says how many.  Without a class, the lines of
 * name are removed only when they are of one class, or all_classes:
 * -LK_EBUSY when several classes have one (nothing removed).  0, or
 * -LK_ENOENT when the note holds none, or another -LK_E*.  Like a save, a
 * compare-and-swap of the notes ref, retried when another writer got first.
 */
int notes_delete(const char *name, const char *rev, const char *runner_class, bool all_classes, size_t *removed,
		 char *err, size_t errlen);

/* Is the working directory in a git repository (and git in PATH)?  0, or -LK_E* with a reason. */
int notes_check_repo(char *err, size_t errlen);

#endif
