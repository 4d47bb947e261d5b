/*
 * base/sha256.h: SHA-256 (FIPS 180-4) of a byte buffer, as lower-case hex.
 * The catalogue records the digest of each imported source so that
 * re-importing an unchanged file is a no-op.  Pure, no allocation.
 */
#ifndef LAUKA_SHA256_H
#define LAUKA_SHA256_H

#include <stddef.h>

/* hex receives 64 hex digits and a NUL. */
void sha256_hex(const void *buf, size_t len, char hex[65]);

#endif
