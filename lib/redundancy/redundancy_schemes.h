/* redundancy_schemes.h — the three schemes behind redundancy.h. Private to
 * redundancy*.c.
 *
 * Each scheme offers apply / rebuild / forget with the contracts of
 * redundancy.h (apply and rebuild collective over ctx->world, every rank of
 * a set calling them with the same descriptor; the dispatcher has agreed on
 * the buffers before). The schemes never call each other, nor the
 * dispatcher: what two of them need is in redundancy_shared.h. */
#ifndef SCR_REDUNDANCY_SCHEMES_H
#define SCR_REDUNDANCY_SCHEMES_H

#include "redundancy.h"
#include "redundancy_shared.h"

#include <stdint.h>

/* have_left_copy: this rank holds an intact copy of its left neighbour's
 * files, which then do not travel again. */
int scr_redundancy_partner_apply(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                                 int id, int have_left_copy);
int scr_redundancy_partner_rebuild(const struct scr_redundancy_ctx *ctx,
                                   const struct scr_reddesc *d, int id, int lost);
int scr_redundancy_partner_forget(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                                  int id);

int scr_redundancy_xor_apply(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                             int id);
int scr_redundancy_xor_rebuild(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                               int id, int lost);

int scr_redundancy_rs_apply(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                            int id);
int scr_redundancy_rs_rebuild(const struct scr_redundancy_ctx *ctx, const struct scr_reddesc *d,
                              int id, int lost);

#endif
