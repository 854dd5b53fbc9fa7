/* test_util_parse.c — the strict number parsers answer SCR_SUCCESS or
 * SCR_ERR_TYPE, read whole strings only, and leave *out alone on failure. */
#include "tap.h"

#include "scr_err.h"
#include "util_parse.h"

#include <stdint.h>

static void test_int64_reads_whole_decimal_numbers(void)
{
    int64_t v = 0;
    CHECK(scr_parse_int64("-42", &v) == SCR_SUCCESS && v == -42, "-42 gave %lld", (long long)v);
    CHECK(scr_parse_int64("9223372036854775807", &v) == SCR_SUCCESS && v == INT64_MAX, "INT64_MAX");
    static const char *const bad[] = {"", " 1", "1 ", "1x", "0x10", "9223372036854775808", "-"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        v = 7;
        CHECK(scr_parse_int64(bad[i], &v) == SCR_ERR_TYPE && v == 7,
              "'%s' accepted or *out changed", bad[i]);
    }
    CHECK(scr_parse_int64(NULL, &v) == SCR_ERR_TYPE, "NULL accepted");
}

static void test_uint64_refuses_signs(void)
{
    uint64_t v = 7;
    CHECK(scr_parse_uint64("18446744073709551615", &v) == SCR_SUCCESS && v == UINT64_MAX,
          "UINT64_MAX");
    v = 7;
    CHECK(scr_parse_uint64("-1", &v) == SCR_ERR_TYPE && v == 7, "-1 accepted");
    CHECK(scr_parse_uint64("+1", &v) == SCR_ERR_TYPE && v == 7, "+1 accepted");
    CHECK(scr_parse_uint64("18446744073709551616", &v) == SCR_ERR_TYPE && v == 7,
          "overflow accepted");
}

static void test_double_reads_finite_values_only(void)
{
    double d = 0;
    CHECK(scr_parse_double("1.5", &d) == SCR_SUCCESS && d == 1.5, "1.5 gave %f", d);
    d = 7;
    CHECK(scr_parse_double("inf", &d) == SCR_ERR_TYPE && d == 7, "inf accepted");
    CHECK(scr_parse_double("nan", &d) == SCR_ERR_TYPE && d == 7, "nan accepted");
    CHECK(scr_parse_double("1.5s", &d) == SCR_ERR_TYPE && d == 7, "1.5s accepted");
}

static void test_crc32_wants_0x_and_32_bits(void)
{
    uint32_t c = 0;
    CHECK(scr_parse_crc32("0xdeadBEEF", &c) == SCR_SUCCESS && c == 0xdeadbeefu,
          "0xdeadBEEF gave %x", c);
    c = 7;
    CHECK(scr_parse_crc32("deadbeef", &c) == SCR_ERR_TYPE && c == 7, "no 0x accepted");
    CHECK(scr_parse_crc32("0x100000000", &c) == SCR_ERR_TYPE && c == 7, "33 bits accepted");
    CHECK(scr_parse_crc32("0x-1", &c) == SCR_ERR_TYPE && c == 7, "0x-1 accepted");
}

static void test_bytes_and_bool(void)
{
    uint64_t v = 0;
    CHECK(scr_parse_bytes("64KB", &v) == SCR_SUCCESS && v == 65536, "64KB gave %llu",
          (unsigned long long)v);
    CHECK(scr_parse_bytes("1.5GiB", &v) == SCR_SUCCESS && v == 1610612736ull, "1.5GiB gave %llu",
          (unsigned long long)v);
    v = 7;
    CHECK(scr_parse_bytes("12XB", &v) == SCR_ERR_TYPE && v == 7, "12XB accepted");
    int b = 7;
    CHECK(scr_parse_bool("1", &b) == SCR_SUCCESS && b == 1, "1 gave %d", b);
    b = 7;
    CHECK(scr_parse_bool("yes", &b) == SCR_ERR_TYPE && b == 7, "yes accepted");
}

int main(void)
{
    RUN(test_int64_reads_whole_decimal_numbers);
    RUN(test_uint64_refuses_signs);
    RUN(test_double_reads_finite_values_only);
    RUN(test_crc32_wants_0x_and_32_bits);
    RUN(test_bytes_and_bool);
    return tap_done();
}
