/* adopt_rule.h — which rank owns a file of an adopted directory.
 *
 * scr-adopt registers files an application wrote without SCR; a rule says
 * which rank reads each one at restart. The rule is a pattern matched
 * against the whole path of a file relative to the adopted directory:
 *   %d   the rank: one or more decimal digits (leading zeros allowed,
 *        "rank_007" is rank 7); exactly one %d per pattern
 *   *    any run of characters other than '/' (maybe none)
 *   %%   a literal '%'
 * and every other character stands for itself. "rank_%d.ckpt" gives
 * rank_3.ckpt to rank 3; "r%d/data.*" gives r12/data.0 and r12/data.1 to
 * rank 12. Where the digits could be split in more than one way, %d takes the
 * longest run that lets the rest match. A rule is parsed once and then
 * matched against each path; it owns no memory beyond the caller's string.
 * Thread-safe. */
#ifndef SCR_ADOPT_RULE_H
#define SCR_ADOPT_RULE_H

struct scr_adopt_rule {
    const char *pattern; /* the caller's string, checked */
};

/* Check pattern and fill rule. SCR_ERR_ARG (logged, naming the pattern and
 * what is wrong) when it has no %d, more than one, or a '%' that is neither
 * %d nor %%. */
int scr_adopt_rule_parse(const char *pattern, struct scr_adopt_rule *rule);

/* 1 with *out_rank set when path (relative to the adopted directory)
 * matches rule and its rank fits an int; 0 otherwise. */
int scr_adopt_rule_match(const struct scr_adopt_rule *rule, const char *path, int *out_rank);

#endif
