/* erasure_xor.h — XOR of buffers: the parity of SCR's XOR redundancy scheme.
 *
 * scr_xor_gen writes dst = srcs[0] ^ srcs[1] ^ ... ^ srcs[nsrc-1];
 * scr_xor_accumulate adds one buffer into a running parity (dst ^= src), what
 * a member of the ring does with the chunk it receives before passing it on.
 *
 * ISA-L's xor_gen does the work when the build has ISA-L and the call suits
 * it (two sources or more, every pointer 32-byte aligned); a portable loop
 * does it otherwise, and both give the same bytes. Any length and alignment
 * is accepted. No allocation, no I/O, no logging: safe from any thread on
 * buffers no other thread writes.
 *
 * dst may be srcs[0] (then scr_xor_gen adds the other sources into it);
 * otherwise it must not overlap any source. */
#ifndef SCR_ERASURE_XOR_H
#define SCR_ERASURE_XOR_H

#include <stddef.h>

/* dst[i] ^= src[i] for i < len. */
void scr_xor_accumulate(void *dst, const void *src, size_t len);

/* dst = XOR of the nsrc buffers of len bytes at srcs; nsrc 0 gives zeros
 * and nsrc 1 a copy. */
void scr_xor_gen(size_t nsrc, size_t len, const void *const *srcs, void *dst);

/* The portable loops on their own, whatever the build, for tests and
 * benchmarks. */
void scr_xor_accumulate_portable(void *dst, const void *src, size_t len);
void scr_xor_gen_portable(size_t nsrc, size_t len, const void *const *srcs, void *dst);

/* 1 if scr_xor_gen and scr_xor_accumulate run on ISA-L (for suitable calls). */
int scr_xor_uses_isal(void);

#endif
