/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for lib/json.c: a table of named documents, each parsed whole
 * and as every prefix, always ending on a guard page, against the expected
 * result, error offset and canonical (compact) form; generated tables of
 * every byte alone, inside a string and after a backslash; nesting and node
 * limits; the accessors and the writer.
 */
#include <errno.h>
#include <stdint.h>

#include "json.h"
#include "strbuf.h"
#include "tap.h"

#define NODES 512

struct jcase {
	const char *name;
	const char *in;
	size_t len; /* 0: strlen(in) */
	enum json_err err;
	size_t off;        /* error offset (ignored for OK and NEED_MORE) */
	const char *canon; /* compact form for OK; NULL: the input itself */
	size_t max_nodes;  /* 0: NODES */
};

#define OK(name, in, canon) \
	{ \
		name, in, 0, JSON_OK, 0, canon, 0 \
	}
#define MORE(name, in) \
	{ \
		name, in, 0, JSON_NEED_MORE, 0, NULL, 0 \
	}
#define BAD(name, in, err, off) \
	{ \
		name, in, 0, err, off, NULL, 0 \
	}
#define BADN(name, in, len, err, off) \
	{ \
		name, in, len, err, off, NULL, 0 \
	}

static const struct jcase cases[] = {
    /* literals */
    OK("null", "null", NULL),
    OK("true", "true", NULL),
    OK("false", "false", NULL),
    OK("white space around", " \t\r\n true \n", "true"),
    MORE("empty", ""),
    MORE("only white space", " \t\r\n"),
    MORE("nul prefix", "nul"),
    BAD("null then x", "nulx", JSON_ERR_SYNTAX, 3),
    BAD("tRue", "tRue", JSON_ERR_SYNTAX, 1),
    BAD("True", "True", JSON_ERR_SYNTAX, 0),
    BAD("NaN", "NaN", JSON_ERR_SYNTAX, 0),
    BAD("Infinity", "Infinity", JSON_ERR_SYNTAX, 0),
    BAD("-Infinity", "-Infinity", JSON_ERR_NUMBER, 1),
    BAD("undefined", "undefined", JSON_ERR_SYNTAX, 0),
    BAD("truex", "truex", JSON_ERR_TRAILING, 4),
    BAD("[truex]", "[truex]", JSON_ERR_SYNTAX, 5),
    BAD("nulll", "nulll", JSON_ERR_TRAILING, 4),
    BAD("single quotes", "'a'", JSON_ERR_SYNTAX, 0),
    BAD("byte-order mark", "\xef\xbb\xbf{}", JSON_ERR_SYNTAX, 0),
    BAD("vertical tab is not white space", "[]\v", JSON_ERR_TRAILING, 2),
    BAD("form feed is not white space", "\f[]", JSON_ERR_SYNTAX, 0),
    BAD("NBSP is not white space", "\xc2\xa0[]", JSON_ERR_SYNTAX, 0),

    /* numbers */
    OK("zero", "0", NULL),
    OK("minus zero", "-0", NULL),
    OK("one", "1", NULL),
    OK("minus one", "-1", NULL),
    OK("123", "123", NULL),
    OK("int64 max", "9223372036854775807", NULL),
    OK("int64 min", "-9223372036854775808", NULL),
    OK("above int64 max", "9223372036854775808", NULL),
    OK("below int64 min", "-9223372036854775809", NULL),
    OK("uint64 max", "18446744073709551615", NULL),
    OK("above uint64 max", "18446744073709551616", NULL),
    OK("fraction", "1.5", NULL),
    OK("negative exponent fraction", "-1.5e10", NULL),
    OK("E+", "1E+2", NULL),
    OK("e-", "1e-2", NULL),
    OK("0.0", "0.0", NULL),
    OK("0e0", "0e0", NULL),
    OK("large double", "1e308", NULL),
    OK("underflow is zero", "-1e-400", NULL),
    OK("64 characters",
        "1234567890123456789012345678901234567890123456789012345678901234",
        NULL),
    OK("number in array", "[1,-2,3.5]", NULL),
    OK("number then white space in array", "[ 1 , 2 ]", "[1,2]"),
    BAD("65 characters",
        "12345678901234567890123456789012345678901234567890123456789012345",
        JSON_ERR_NUMBER, 64),
    BAD("leading zero", "01", JSON_ERR_NUMBER, 1),
    BAD("negative leading zero", "-01", JSON_ERR_NUMBER, 2),
    BAD("double zero", "00", JSON_ERR_NUMBER, 1),
    MORE("dot at end", "1."),
    BAD("dot then exponent", "1.e1", JSON_ERR_NUMBER, 2),
    BAD("leading dot", ".5", JSON_ERR_SYNTAX, 0),
    BAD("plus sign", "+1", JSON_ERR_SYNTAX, 0),
    MORE("e at end", "1e"),
    MORE("e+ at end", "1e+"),
    BAD("e then letter", "1ex", JSON_ERR_NUMBER, 2),
    BAD("double minus", "--1", JSON_ERR_NUMBER, 1),
    MORE("minus alone", "-"),
    BAD("minus space", "- 1", JSON_ERR_NUMBER, 1),
    BAD("overflow to infinity", "1e999", JSON_ERR_NUMBER, 5),
    BAD("negative overflow", "-1e999", JSON_ERR_NUMBER, 6),
    BAD("overflow in array", "[1e999]", JSON_ERR_NUMBER, 6),
    BAD("hex", "0x10", JSON_ERR_TRAILING, 1),
    BAD("two numbers", "1 2", JSON_ERR_TRAILING, 2),
    BAD("leading zero in array", "[01]", JSON_ERR_NUMBER, 2),
    BAD("second dot", "1.5.", JSON_ERR_TRAILING, 3),
    BAD("comma decimal", "[1,5.]", JSON_ERR_NUMBER, 5),
    MORE("number at end of array", "[12"),

    /* strings */
    OK("empty string", "\"\"", NULL),
    OK("abc", "\"abc\"", NULL),
    OK("short escapes", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
        "\"\\\"\\\\/\\u0008\\u000c\\n\\r\\t\""),
    OK("u escape ASCII", "\"\\u0041\"", "\"A\""),
    OK("u escape upper hex", "\"\\u00E9\"", "\"\\u00e9\""),
    OK("u escape NUL", "\"\\u0000\"", "\"\\u0000\""),
    OK("surrogate pair", "\"\\uD83D\\uDE00\"", "\"\\ud83d\\ude00\""),
    OK("highest pair", "\"\\udbff\\udfff\"", "\"\\udbff\\udfff\""),
    OK("U+FFFF escape", "\"\\uffff\"", NULL),
    OK("raw 2-byte UTF-8", "\"\xc3\xa9\"", "\"\\u00e9\""),
    OK("raw 3-byte UTF-8", "\"\xe2\x82\xac\"", "\"\\u20ac\""),
    OK("raw 4-byte UTF-8", "\"\xf0\x9f\x98\x80\"", "\"\\ud83d\\ude00\""),
    OK("U+0080", "\"\xc2\x80\"", "\"\\u0080\""),
    OK("U+07FF", "\"\xdf\xbf\"", "\"\\u07ff\""),
    OK("U+0800", "\"\xe0\xa0\x80\"", "\"\\u0800\""),
    OK("U+D7FF", "\"\xed\x9f\xbf\"", "\"\\ud7ff\""),
    OK("U+E000", "\"\xee\x80\x80\"", "\"\\ue000\""),
    OK("U+FFFF", "\"\xef\xbf\xbf\"", "\"\\uffff\""),
    OK("U+10000", "\"\xf0\x90\x80\x80\"", "\"\\ud800\\udc00\""),
    OK("U+10FFFF", "\"\xf4\x8f\xbf\xbf\"", "\"\\udbff\\udfff\""),
    OK("raw DEL", "\"\x7f\"", "\"\\u007f\""),
    OK("mixed escapes and text", "\"a\\nb\\u00e9c\xc3\xa9\"",
        "\"a\\nb\\u00e9c\\u00e9\""),
    OK("angle brackets as egressd escapes them", "\"\\u003cx\\u003e\"",
        "\"<x>\""),
    MORE("unterminated", "\"abc"),
    MORE("backslash at end", "\"\\"),
    MORE("u escape at end", "\"\\u12"),
    MORE("high surrogate at end", "\"\\ud800"),
    MORE("high surrogate then backslash", "\"\\ud800\\"),
    MORE("high surrogate then u", "\"\\ud800\\udc"),
    BAD("unknown escape", "\"\\x\"", JSON_ERR_ESCAPE, 2),
    BAD("escaped apostrophe", "\"\\'\"", JSON_ERR_ESCAPE, 2),
    BAD("bad hex digit", "\"\\u12G4\"", JSON_ERR_ESCAPE, 5),
    BAD("u then quote", "\"\\u\"", JSON_ERR_ESCAPE, 3),
    BAD("lone high surrogate", "\"\\uD800\"", JSON_ERR_SURROGATE, 7),
    BAD("high surrogate then letter escape", "\"\\uD800\\u0041\"",
        JSON_ERR_SURROGATE, 12),
    BAD("lone low surrogate", "\"\\uDC00\"", JSON_ERR_SURROGATE, 6),
    BAD("high surrogate then \\n", "\"\\uD800\\n\"", JSON_ERR_SURROGATE, 8),
    BAD("two high surrogates", "\"\\uD800\\uD800\"", JSON_ERR_SURROGATE, 12),
    BAD("high surrogate then raw low", "\"\\ud800\xed\xb0\x80\"",
        JSON_ERR_SURROGATE, 7),
    BAD("control byte", "\"a\x01\"", JSON_ERR_CONTROL, 2),
    BAD("raw tab", "\"\t\"", JSON_ERR_CONTROL, 1),
    BAD("raw newline", "\"a\nb\"", JSON_ERR_CONTROL, 2),
    BADN("raw NUL", "\"a\0b\"", 5, JSON_ERR_CONTROL, 2),
    BAD("raw ESC sequence", "\"\x1b[31m\"", JSON_ERR_CONTROL, 1),
    BAD("lone continuation byte", "\"\x80\"", JSON_ERR_UTF8, 1),
    BAD("C0 overlong lead", "\"\xc0\x80\"", JSON_ERR_UTF8, 1),
    BAD("C1 overlong lead", "\"\xc1\xbf\"", JSON_ERR_UTF8, 1),
    BAD("E0 overlong", "\"\xe0\x80\x80\"", JSON_ERR_UTF8, 2),
    BAD("encoded surrogate", "\"\xed\xa0\x80\"", JSON_ERR_UTF8, 2),
    BAD("F0 overlong", "\"\xf0\x80\x80\x80\"", JSON_ERR_UTF8, 2),
    BAD("above U+10FFFF", "\"\xf4\x90\x80\x80\"", JSON_ERR_UTF8, 2),
    BAD("F5 lead", "\"\xf5\x80\x80\x80\"", JSON_ERR_UTF8, 1),
    BAD("FF byte", "\"\xff\"", JSON_ERR_UTF8, 1),
    BAD("FE byte", "\"\xfe\"", JSON_ERR_UTF8, 1),
    BAD("truncated 2-byte", "\"\xc3\"", JSON_ERR_UTF8, 2),
    BAD("truncated 3-byte", "\"\xe2\x82\"", JSON_ERR_UTF8, 3),
    BAD("truncated 4-byte then ASCII", "\"\xf0\x9f\x98x\"", JSON_ERR_UTF8, 4),
    BAD("Latin-1 byte", "\"caf\xe9\"", JSON_ERR_UTF8, 5),
    MORE("UTF-8 lead at end", "\"\xc3"),
    MORE("UTF-8 two of three at end", "\"\xe2\x82"),
    BAD("string then string", "\"a\"\"b\"", JSON_ERR_TRAILING, 3),

    /* arrays */
    OK("empty array", "[]", NULL),
    OK("empty array with space", "[ ]", "[]"),
    OK("one element", "[1]", NULL),
    OK("three elements", "[1,2,3]", NULL),
    OK("nested empty", "[[]]", NULL),
    OK("literals in array", "[null,true,false]", NULL),
    OK("mixed array", "[\"a\",{\"b\":[]},[[1]],-0.5]", NULL),
    OK("white space everywhere", " [ 1 ,\n\t[ ] , { } ] ", "[1,[],{}]"),
    MORE("open bracket", "["),
    MORE("one element open", "[1"),
    MORE("element and comma", "[1,"),
    MORE("nested open", "[[[]"),
    BAD("trailing comma", "[1,]", JSON_ERR_SYNTAX, 3),
    BAD("leading comma", "[,1]", JSON_ERR_SYNTAX, 1),
    BAD("missing comma", "[1 2]", JSON_ERR_SYNTAX, 3),
    BAD("wrong close", "[1}", JSON_ERR_SYNTAX, 2),
    BAD("close only", "]", JSON_ERR_SYNTAX, 0),
    BAD("extra close", "[1]]", JSON_ERR_TRAILING, 3),
    BAD("double comma", "[1,,2]", JSON_ERR_SYNTAX, 3),
    BAD("colon in array", "[1:2]", JSON_ERR_SYNTAX, 2),

    /* objects */
    OK("empty object", "{}", NULL),
    OK("one member", "{\"a\":1}", NULL),
    OK("duplicate keys kept", "{\"a\":1,\"a\":2}", NULL),
    OK("escaped key", "{\"\\u0061\\n\":1}", "{\"a\\n\":1}"),
    OK("empty key", "{\"\":0}", NULL),
    OK("white space in object", "{ \"a\" : [ ] , \"b\" : { } }",
        "{\"a\":[],\"b\":{}}"),
    OK("object in object", "{\"a\":{\"b\":{\"c\":null}}}", NULL),
    MORE("open brace", "{"),
    MORE("key only", "{\"a\""),
    MORE("key and colon", "{\"a\":"),
    MORE("member open", "{\"a\":1"),
    MORE("member and comma", "{\"a\":1,"),
    MORE("key unterminated", "{\"a"),
    BAD("trailing comma in object", "{\"a\":1,}", JSON_ERR_SYNTAX, 7),
    BAD("bare key", "{a:1}", JSON_ERR_SYNTAX, 1),
    BAD("single-quoted key", "{'a':1}", JSON_ERR_SYNTAX, 1),
    BAD("missing colon", "{\"a\" 1}", JSON_ERR_SYNTAX, 5),
    BAD("bracket close", "{\"a\":1]", JSON_ERR_SYNTAX, 6),
    BAD("comma first", "{,}", JSON_ERR_SYNTAX, 1),
    BAD("missing comma between members", "{\"a\":1 \"b\":2}", JSON_ERR_SYNTAX,
        7),
    BAD("double colon", "{\"a\"::1}", JSON_ERR_SYNTAX, 5),
    BAD("number key", "{1:2}", JSON_ERR_SYNTAX, 1),
    BAD("key with bad escape", "{\"\\q\":1}", JSON_ERR_ESCAPE, 3),
    BAD("key with control byte", "{\"\x02\":1}", JSON_ERR_CONTROL, 2),
    BAD("missing value", "{\"a\":}", JSON_ERR_SYNTAX, 5),
    BAD("array as key", "{[]:1}", JSON_ERR_SYNTAX, 1),

    /* comments and other extensions */
    BAD("line comment", "// x\n1", JSON_ERR_SYNTAX, 0),
    BAD("block comment in array", "[1 /* */]", JSON_ERR_SYNTAX, 3),
    BAD("hash comment", "# x", JSON_ERR_SYNTAX, 0),

    /* trailing data */
    BAD("object then x", "{}x", JSON_ERR_TRAILING, 2),
    BAD("two objects", "{} {}", JSON_ERR_TRAILING, 3),
    BAD("null null", "null null", JSON_ERR_TRAILING, 5),
    BADN("object then NUL", "{}\0", 3, JSON_ERR_TRAILING, 2),
    BAD("JSON lines: two records", "{\"a\":1}\n{\"a\":2}\n", JSON_ERR_TRAILING,
        8),
    OK("one record and newline", "{\"a\":1}\n", "{\"a\":1}"),

    /* node limits */
    {"nine values in eight nodes", "[1,2,3,4,5,6,7,8]", 0, JSON_ERR_NODES, 15,
        NULL, 8},
    {"eight values in eight nodes", "[1,2,3,4,5,6,7]", 0, JSON_OK, 0, NULL, 8},
    {"one node, object with a member", "{\"a\":1}", 0, JSON_ERR_NODES, 5, NULL,
        1},
    {"one node, empty object", "{}", 0, JSON_OK, 0, NULL, 1},

    /* a decision record as egressd writes it (docs/logging.md) */
    OK("decision record",
        "{\"time\":1796000000123,\"class_uid\":4001,\"category_uid\":4,"
        "\"activity_id\":5,\"activity_name\":\"Refuse\",\"type_uid\":400105,"
        "\"action_id\":2,\"action\":\"Denied\",\"disposition_id\":2,"
        "\"disposition\":\"Blocked\",\"severity_id\":3,\"severity\":\"Medium\","
        "\"src_endpoint\":{\"ip\":\"127.0.0.1\",\"port\":51234},"
        "\"dst_endpoint\":{\"hostname\":\"evil.example\",\"port\":443},"
        "\"actor\":{\"process\":{\"pid\":4242,\"file\":{\"path\":"
        "\"/usr/bin/curl\"},\"cmd_line\":\"curl https://evil.example/\","
        "\"user\":{\"uid\":\"65534\"}}},\"egressd\":{\"conn\":17,"
        "\"decision\":\"denied\",\"reason\":\"no_matching_policy\","
        "\"mode\":\"enforce\",\"hint\":\"add '- { host: evil.example, "
        "port: 443 }' \\u003cx\\u003e\"}}",
        "{\"time\":1796000000123,\"class_uid\":4001,\"category_uid\":4,"
        "\"activity_id\":5,\"activity_name\":\"Refuse\",\"type_uid\":400105,"
        "\"action_id\":2,\"action\":\"Denied\",\"disposition_id\":2,"
        "\"disposition\":\"Blocked\",\"severity_id\":3,\"severity\":\"Medium\","
        "\"src_endpoint\":{\"ip\":\"127.0.0.1\",\"port\":51234},"
        "\"dst_endpoint\":{\"hostname\":\"evil.example\",\"port\":443},"
        "\"actor\":{\"process\":{\"pid\":4242,\"file\":{\"path\":"
        "\"/usr/bin/curl\"},\"cmd_line\":\"curl https://evil.example/\","
        "\"user\":{\"uid\":\"65534\"}}},\"egressd\":{\"conn\":17,"
        "\"decision\":\"denied\",\"reason\":\"no_matching_policy\","
        "\"mode\":\"enforce\",\"hint\":\"add '- { host: evil.example, "
        "port: 443 }' <x>\"}}"),
};

static struct tap_guard guard;
static struct json_node nodes[NODES];

static enum json_err
parse_guarded(const char *in, size_t len, size_t max_nodes, struct json_doc *d)
{
	const char *p = (const char *)tap_guard_copy(&guard, in, len);

	json_doc_init(d, nodes, max_nodes ? max_nodes : NODES);
	return json_parse(d, p, len);
}

static bool
all_ws(const char *s, size_t from, size_t to)
{
	for (; from < to; from++)
		if (!(s[from] == ' ' || s[from] == '\t' || s[from] == '\n' ||
		        s[from] == '\r'))
			return false;
	return true;
}

static bool
top_number(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && all_ws(s, i, i + 1))
		i++;
	return i < len && (s[i] == '-' || (s[i] >= '0' && s[i] <= '9'));
}

/*
 * Every proper prefix: NEED_MORE; or, once the error is visible (the prefix
 * includes the offending byte), the same error at the same offset; or OK when
 * the prefix is itself a whole document (the rest up to the end or the
 * trailing garbage is white space). A top-level number's prefixes may also be
 * whole numbers, or out of range at their own end.
 */
static bool
check_prefixes(const struct jcase *tc, const char *in, size_t len,
    enum json_err want, size_t want_off, char *why, size_t whylen)
{
	bool num = top_number(in, len);
	size_t p;

	for (p = 0; p < len; p++) {
		struct json_doc d;
		enum json_err r = parse_guarded(in, p, tc->max_nodes, &d);
		bool ok;

		if (r == JSON_NEED_MORE)
			ok = want == JSON_OK || want == JSON_NEED_MORE ||
			    p <= want_off;
		else if (r == JSON_OK)
			ok = num || (want == JSON_OK && all_ws(in, p, len)) ||
			    (want == JSON_ERR_TRAILING && p <= want_off &&
			        all_ws(in, p, want_off));
		else if (r == want && d.err_off == want_off)
			ok = p > want_off || num;
		else
			ok = num && r == JSON_ERR_NUMBER && d.err_off == p;
		if (!ok) {
			snprintf(why, whylen,
			    "prefix of %zu bytes: %s at %zu (whole: %s at %zu)",
			    p, json_strerror(r), d.err_off, json_strerror(want),
			    want_off);
			return false;
		}
	}
	return true;
}

/* Parses, checks result, offset and canonical form, round trip, prefixes. */
static void
run_case(const struct jcase *tc, const char *in, size_t len)
{
	struct json_doc d, d2;
	struct json_node nodes2[NODES];
	struct strbuf sb, sb2, pretty;
	enum json_err r;
	char why[256];

	r = parse_guarded(in, len, tc->max_nodes, &d);
	if (!tap_ok(r == tc->err, "%s: %s", tc->name, json_strerror(tc->err))) {
		tap_diag("got %s at %zu", json_strerror(r), d.err_off);
		return;
	}
	if (r != JSON_OK && r != JSON_NEED_MORE)
		tap_is_int(d.err_off, tc->off, "%s: error offset", tc->name);
	if (r == JSON_NEED_MORE)
		tap_is_int(d.err_off, len, "%s: offset is the end", tc->name);
	if (r == JSON_OK) {
		strbuf_init(&sb, 0);
		strbuf_init(&sb2, 0);
		strbuf_init(&pretty, 0);
		json_write(&d, json_root(&d), &sb, 0);
		if (tc->canon)
			tap_is_str(strbuf_str(&sb), tc->canon,
			    "%s: canonical form", tc->name);
		else
			tap_ok(sb.len == len && memcmp(sb.s, in, len) == 0,
			    "%s: canonical form is the input", tc->name);
		/* the canonical and the pretty form parse to the same */
		json_write(&d, json_root(&d), &pretty, 2);
		json_doc_init(&d2, nodes2, NODES);
		r = json_parse(&d2, pretty.s, pretty.len);
		if (r == JSON_OK)
			json_write(&d2, json_root(&d2), &sb2, 0);
		tap_is_str(strbuf_str(&sb2), strbuf_str(&sb),
		    "%s: pretty form parses back", tc->name);
		strbuf_free(&sb);
		strbuf_free(&sb2);
		strbuf_free(&pretty);
	}
	why[0] = '\0';
	if (!tap_ok(check_prefixes(tc, in, len, tc->err,
	                tc->err == JSON_OK ? len : tc->off, why, sizeof(why)),
	        "%s: every prefix", tc->name))
		tap_diag("%s", why);
}

static void
test_table(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct jcase *tc = &cases[i];

		run_case(tc, tc->in, tc->len ? tc->len : strlen(tc->in));
	}
}

/* Every byte alone, inside a string, and after a backslash. */
static void
test_bytes(void)
{
	unsigned b;
	int bad_alone = 0, bad_str = 0, bad_esc = 0, bad_pre = 0;

	for (b = 0; b < 256; b++) {
		struct jcase tc = {"byte", NULL, 1, JSON_OK, 0, NULL, 0};
		char in[8], why[256];
		struct json_doc d;
		enum json_err r, want;
		size_t want_off = 0;

		/* alone */
		in[0] = (char)b;
		if (b >= '0' && b <= '9')
			want = JSON_OK;
		else if (strchr("\"[{tfn- \t\r\n", (int)b) && b != 0)
			want = JSON_NEED_MORE;
		else
			want = JSON_ERR_SYNTAX;
		r = parse_guarded(in, 1, 0, &d);
		if (r != want || (want == JSON_ERR_SYNTAX && d.err_off != 0)) {
			tap_diag("byte 0x%02x alone: %s", b, json_strerror(r));
			bad_alone++;
		}
		/* inside a string */
		in[0] = '"';
		in[1] = (char)b;
		in[2] = '"';
		if (b < 0x20) {
			want = JSON_ERR_CONTROL;
			want_off = 1;
		} else if (b == '"') {
			want = JSON_ERR_TRAILING;
			want_off = 2;
		} else if (b == '\\') {
			want = JSON_NEED_MORE;
		} else if (b < 0x80) {
			want = JSON_OK;
		} else if (b >= 0xc2 && b <= 0xf4) {
			want = JSON_ERR_UTF8; /* the quote is no continuation */
			want_off = 2;
		} else {
			want = JSON_ERR_UTF8;
			want_off = 1;
		}
		r = parse_guarded(in, 3, 0, &d);
		tc.err = want;
		tc.off = want_off;
		if (r != want ||
		    (want != JSON_OK && want != JSON_NEED_MORE &&
		        d.err_off != want_off)) {
			tap_diag("byte 0x%02x in a string: %s at %zu", b,
			    json_strerror(r), d.err_off);
			bad_str++;
		}
		if (!check_prefixes(&tc, in, 3, want,
		        want == JSON_OK ? 3 : want_off, why, sizeof(why))) {
			tap_diag("byte 0x%02x in a string: %s", b, why);
			bad_pre++;
		}
		/* after a backslash */
		in[1] = '\\';
		in[2] = (char)b;
		in[3] = '"';
		if (strchr("\"\\/bfnrt", (int)b) && b != 0) {
			want = JSON_OK;
		} else if (b == 'u') {
			want = JSON_ERR_ESCAPE;
			want_off = 3;
		} else {
			want = JSON_ERR_ESCAPE;
			want_off = 2;
		}
		r = parse_guarded(in, 4, 0, &d);
		if (r != want || (want != JSON_OK && d.err_off != want_off)) {
			tap_diag("byte 0x%02x after a backslash: %s at %zu", b,
			    json_strerror(r), d.err_off);
			bad_esc++;
		}
	}
	tap_is_int(bad_alone, 0, "every byte alone");
	tap_is_int(bad_str, 0, "every byte inside a string");
	tap_is_int(bad_pre, 0, "every byte inside a string: every prefix");
	tap_is_int(bad_esc, 0, "every byte after a backslash");
}

/* Every byte of every valid UTF-8 lead class with every second byte. */
static void
test_utf8_pairs(void)
{
	unsigned a, b;
	int bad = 0;

	for (a = 0x80; a < 0x100; a++) {
		for (b = 0; b < 0x100; b++) {
			char in[8] = {
			    '"', (char)a, (char)b, '\x80', '\x80', '"'};
			struct json_doc d;
			enum json_err r = parse_guarded(in, 6, 0, &d);
			unsigned lo = 0x80, hi = 0xbf;
			int n = a >= 0xc2 && a <= 0xdf ? 1 :
			    a >= 0xe0 && a <= 0xef     ? 2 :
			    a >= 0xf0 && a <= 0xf4     ? 3 :
			                                 0;
			enum json_err want;

			if (a == 0xe0)
				lo = 0xa0;
			if (a == 0xed)
				hi = 0x9f;
			if (a == 0xf0)
				lo = 0x90;
			if (a == 0xf4)
				hi = 0x8f;
			if (n == 0)
				want = JSON_ERR_UTF8;
			else if (b < lo || b > hi)
				want = JSON_ERR_UTF8;
			else if (n == 1)
				/* then two stray continuation bytes */
				want = JSON_ERR_UTF8;
			else if (n == 2)
				want = JSON_ERR_UTF8; /* one stray byte */
			else
				want = JSON_OK;
			if (r != want) {
				tap_diag("0x%02x 0x%02x: %s", a, b,
				    json_strerror(r));
				bad++;
			}
			if (r == JSON_ERR_UTF8) {
				size_t want_off = n == 0 ? 1 :
				    (b < lo || b > hi)   ? 2 :
				    n == 1               ? 3 :
				                           4;
				if (d.err_off != want_off) {
					tap_diag("0x%02x 0x%02x: offset %zu", a,
					    b, d.err_off);
					bad++;
				}
			}
		}
	}
	tap_is_int(bad, 0, "UTF-8: every lead byte with every second byte");
}

static void
nest(struct strbuf *sb, int depth, bool obj)
{
	int i;

	for (i = 0; i < depth; i++)
		strbuf_puts(sb, obj ? "{\"a\":" : "[");
	strbuf_puts(sb, "1");
	for (i = 0; i < depth; i++)
		strbuf_puts(sb, obj ? "}" : "]");
}

static void
test_depth(void)
{
	struct strbuf sb;
	struct json_doc d;
	enum json_err r;
	int obj;

	for (obj = 0; obj < 2; obj++) {
		const char *what = obj ? "objects" : "arrays";

		strbuf_init(&sb, 0);
		nest(&sb, JSON_MAX_DEPTH, obj);
		r = parse_guarded(sb.s, sb.len, 0, &d);
		tap_is_int(r, JSON_OK, "%d nested %s", JSON_MAX_DEPTH, what);
		strbuf_reset(&sb);
		nest(&sb, JSON_MAX_DEPTH + 1, obj);
		r = parse_guarded(sb.s, sb.len, 0, &d);
		tap_is_int(r, JSON_ERR_DEPTH, "%d nested %s",
		    JSON_MAX_DEPTH + 1, what);
		tap_is_int(d.err_off, JSON_MAX_DEPTH * (obj ? 5 : 1),
		    "%d nested %s: offset of the bracket too many",
		    JSON_MAX_DEPTH + 1, what);
		strbuf_reset(&sb);
		/* 100,000 open brackets: refused at the 65th, no recursion */
		while (sb.len < 100000)
			strbuf_puts(&sb, obj ? "{\"a\":" : "[");
		r = parse_guarded(sb.s, sb.len, 0, &d);
		tap_is_int(r, JSON_ERR_DEPTH, "100,000 open %s", what);
		strbuf_free(&sb);
	}
}

static void
test_size(void)
{
	char *big = malloc(JSON_MAX_INPUT + 1);
	struct json_doc d;
	enum json_err r;

	if (big == NULL)
		exit(2);
	memset(big, ' ', JSON_MAX_INPUT + 1);
	big[JSON_MAX_INPUT - 1] = '0';
	json_doc_init(&d, nodes, NODES);
	r = json_parse(&d, big, JSON_MAX_INPUT);
	tap_is_int(r, JSON_OK, "input of exactly JSON_MAX_INPUT bytes");
	r = json_parse(&d, big, JSON_MAX_INPUT + 1);
	tap_is_int(r, JSON_ERR_TOO_LARGE, "one byte more");
	tap_is_int(d.err_off, JSON_MAX_INPUT, "offset is the limit");
	free(big);
}

static void
test_access(void)
{
	static const char text[] =
	    "{\"a\":1,\"b\":{\"c\":{\"d\":\"deep\"}},\"a\":2,"
	    "\"s\":\"x\\u0000y\",\"e\":\"caf\\u00e9 \\ud83d\\ude00\","
	    "\"\\u006b\":\"escaped key\",\"f\":1.0,\"g\":-9223372036854775808,"
	    "\"h\":9223372036854775808,\"t\":true,\"n\":null,\"arr\":[1,2,3],"
	    "\"long\":\"0123456789\"}";
	struct json_doc d;
	const struct json_node *root, *n;
	char buf[64];
	size_t len;
	int64_t v;
	bool bv;
	int count;

	json_doc_init(&d, nodes, NODES);
	tap_is_int(json_parse(&d, text, sizeof(text) - 1), JSON_OK,
	    "access document parses");
	root = json_root(&d);
	tap_ok(json_int(json_get(&d, root, "a"), &v) && v == 2,
	    "duplicate key: the last wins");
	tap_ok(json_cstr(&d, json_getp(&d, root, "b.c.d"), buf, sizeof(buf)) &&
	        strcmp(buf, "deep") == 0,
	    "dotted path");
	tap_ok(json_getp(&d, root, "b.c.x") == NULL, "dotted path: missing");
	tap_ok(
	    json_getp(&d, root, "a.b") == NULL, "dotted path through a number");
	tap_ok(json_get(&d, NULL, "a") == NULL, "json_get(NULL)");
	n = json_get(&d, root, "s");
	tap_ok(json_string(&d, n, buf, sizeof(buf), &len) && len == 3 &&
	        memcmp(buf, "x\0y", 3) == 0,
	    "json_string keeps an escaped NUL");
	tap_ok(!json_cstr(&d, n, buf, sizeof(buf)),
	    "json_cstr refuses an escaped NUL");
	tap_is_int(json_string_len(&d, n), 3, "json_string_len with NUL");
	tap_ok(json_cstr(&d, json_get(&d, root, "e"), buf, sizeof(buf)) &&
	        strcmp(buf, "caf\xc3\xa9 \xf0\x9f\x98\x80") == 0,
	    "escapes and surrogate pairs decode to UTF-8");
	tap_is_int(json_string_len(&d, json_get(&d, root, "e")), 10,
	    "decoded length of escapes");
	tap_ok(json_cstr(&d, json_get(&d, root, "k"), buf, sizeof(buf)) &&
	        strcmp(buf, "escaped key") == 0,
	    "escaped key found by its decoded name");
	tap_ok(!json_int(json_get(&d, root, "f"), &v), "1.0 is not an int");
	tap_ok(json_get(&d, root, "f")->d == 1.0, "1.0 is the double 1");
	tap_ok(json_int(json_get(&d, root, "g"), &v) && v == INT64_MIN,
	    "int64 min");
	tap_ok(!json_int(json_get(&d, root, "h"), &v), "2^63 is not an int");
	tap_ok(json_bool(json_get(&d, root, "t"), &bv) && bv, "true");
	tap_ok(!json_bool(json_get(&d, root, "n"), &bv), "null is no bool");
	tap_ok(json_get(&d, root, "n")->type == JSON_NULL, "null");
	count = 0;
	for (n = json_child(&d, json_get(&d, root, "arr")); n;
	     n = json_next(&d, n))
		count++;
	tap_is_int(count, 3, "iterate an array");
	tap_is_int(json_get(&d, root, "arr")->count, 3, "array count");
	tap_is_int(root->count, 13, "object count includes duplicates");
	n = json_get(&d, root, "long");
	tap_ok(json_cstr(&d, n, buf, 11), "exact fit with the NUL");
	tap_ok(!json_cstr(&d, n, buf, 10), "one byte short");
	tap_ok(!json_cstr(&d, json_get(&d, root, "a"), buf, sizeof(buf)),
	    "a number is no string");
	tap_ok(!json_cstr(&d, NULL, buf, sizeof(buf)), "json_cstr(NULL)");
	tap_ok(json_root(&d) == &nodes[0], "root is node 0");
	json_doc_init(&d, nodes, 0);
	tap_is_int(json_parse(&d, "1", 1), JSON_ERR_NODES, "no nodes at all");
	tap_ok(json_root(&d) == NULL, "no root after an error");
}

static void
test_writer(void)
{
	static const char text[] =
	    "{\"a\":[1,{\"b\":null},[]],\"c\":{},\"d\":\"\\u00e9\\t\"}";
	static const char want[] = "{\n"
	                           "  \"a\": [\n"
	                           "    1,\n"
	                           "    {\n"
	                           "      \"b\": null\n"
	                           "    },\n"
	                           "    []\n"
	                           "  ],\n"
	                           "  \"c\": {},\n"
	                           "  \"d\": \"\\u00e9\\t\"\n"
	                           "}";
	struct json_doc d;
	struct strbuf sb;

	json_doc_init(&d, nodes, NODES);
	json_parse(&d, text, sizeof(text) - 1);
	strbuf_init(&sb, 0);
	json_write(&d, json_root(&d), &sb, 2);
	tap_is_str(strbuf_str(&sb), want, "pretty writer");
	strbuf_reset(&sb);
	json_write(&d, NULL, &sb, 0);
	tap_is_str(strbuf_str(&sb), "null", "writer of NULL");
	strbuf_free(&sb);
}

static void
test_errno(void)
{
	struct json_doc d;

	errno = 1234;
	json_doc_init(&d, nodes, NODES);
	json_parse(&d, "[1e-400, 1e300]", 15);
	tap_is_int(errno, 1234, "errno is left alone (strtod underflow)");
	tap_ok(strcmp(json_strerror(JSON_ERR_UTF8),
	           "invalid UTF-8 in a string") == 0,
	    "json_strerror");
}

int
main(void)
{
	test_table();
	test_bytes();
	test_utf8_pairs();
	test_depth();
	test_size();
	test_access();
	test_writer();
	test_errno();
	tap_guard_free(&guard);
	return tap_done();
}
