/*
 * base/text.h: text for a terminal.  How many columns a string takes there and
 * word wrapping to a width are pure; text_print writes a line so that it fits
 * the terminal its stream is on, and whole to a pipe or a file, where nobody
 * reads it at a width and scripts read it line by line.
 */
#ifndef LAUKA_TEXT_H
#define LAUKA_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Columns a string takes on a terminal (UTF-8 aware, ANSI escapes skipped, emoji count 2). */
size_t text_width(const char *s);

/*
 * One line of text for a terminal of width columns (0: no limit: the line as it is, for a pipe or a
 * file): broken at spaces, each continuation line starting with indent spaces; a word wider than
 * the room stays whole.  Returns an allocated string without the final newline.
 */
char *text_wrap(const char *line, size_t width, size_t indent);

/*
 * line and a newline to f, each of its lines wrapped to the columns of the terminal f is on (with
 * indent spaces before every continuation), or whole when f is not a terminal.
 */
void text_print(FILE *f, const char *line, size_t indent);
/* The same for a printf format. */
void text_printf(FILE *f, size_t indent, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
