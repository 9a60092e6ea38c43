/* SPDX-License-Identifier: ISC */
/*
 * DNS message codec: names with compression, queries, replies and TCP
 * framing, every read through lib/cursor.h and every write through a capped
 * writer. Leaves sockets, timeouts, policy and hostname rules to the resolver
 * and the policy DNS server.
 */
#include <string.h>
#include <sys/socket.h>

#include "cursor.h"
#include "dns_msg.h"

/* A capped output buffer: every write either fits or fails and leaves the
 * buffer as it was. */
struct wbuf {
	uint8_t *p;
	size_t cap;
	size_t len;
};

static bool
put_bytes(struct wbuf *w, const void *b, size_t n)
{
	if (w->cap - w->len < n)
		return false;
	if (n)
		memcpy(w->p + w->len, b, n);
	w->len += n;
	return true;
}

static bool
put_u8(struct wbuf *w, uint8_t v)
{
	return put_bytes(w, &v, 1);
}

static bool
put_u16(struct wbuf *w, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};

	return put_bytes(w, b, 2);
}

static bool
put_u32(struct wbuf *w, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16),
	    (uint8_t)(v >> 8), (uint8_t)v};

	return put_bytes(w, b, 4);
}

/* Moves a cursor over the whole message to off (a pointer target). */
static bool
cursor_seek(struct cursor *c, size_t off)
{
	if (off > c->len)
		return false;
	c->off = off;
	return true;
}

static char
ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* RFC 4343 §3: ASCII letters compare case-insensitively, other octets
 * exactly. Labels cannot contain '.' (name_read refuses it), so comparing
 * presentation forms compares label sequences. */
static bool
name_equal(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t i;

	if (alen != blen)
		return false;
	for (i = 0; i < alen; i++)
		if (ascii_lower(a[i]) != ascii_lower(b[i]))
			return false;
	return true;
}

static enum dns_result
name_read(const uint8_t *msg, size_t msg_len, size_t start, size_t *end,
    char *out, size_t *out_len, size_t *err_off)
{
	struct cursor c = cursor_make(msg, msg_len);
	size_t seg_start = start, wire_len = 0, n = 0, next = 0;
	unsigned hops = 0;
	bool jumped = false;

	if (!cursor_seek(&c, start)) {
		*err_off = msg_len;
		return DNS_ERR_SHORT;
	}
	for (;;) {
		size_t at = c.off, target;
		const uint8_t *label;
		uint8_t len, lo;

		if (!cursor_u8(&c, &len)) {
			*err_off = at;
			return DNS_ERR_SHORT;
		}
		if (len == 0)
			break;
		if ((len & 0xc0) == 0xc0) {
			if (!cursor_u8(&c, &lo)) {
				*err_off = at;
				return DNS_ERR_SHORT;
			}
			target = (size_t)(len & 0x3f) << 8 | lo;
			/*
			 * RFC 1035 §4.1.4 only says a pointer refers to a
			 * prior occurrence of a name. Requiring each target
			 * to lie before the start of the labels read so far
			 * makes the offsets strictly decrease, which rules out
			 * loops of any length; every real encoder complies.
			 */
			if (target < DNS_HEADER_LEN || target >= seg_start ||
			    ++hops > DNS_NAME_HOPS_MAX) {
				*err_off = at;
				return DNS_ERR_POINTER;
			}
			if (!jumped)
				next = c.off;
			jumped = true;
			seg_start = target;
			(void)cursor_seek(&c, target);
			continue;
		}
		/* 0x40 (extended, RFC 6891 §5) and 0x80 label types. */
		if (len > DNS_LABEL_MAX) {
			*err_off = at;
			return DNS_ERR_NAME;
		}
		/* This label plus the final root octet must fit in 255. */
		if (wire_len + 1 + len + 1 > DNS_NAME_WIRE_MAX) {
			*err_off = at;
			return DNS_ERR_NAME;
		}
		if (!cursor_bytes(&c, len, &label)) {
			*err_off = at;
			return DNS_ERR_SHORT;
		}
		if (memchr(label, '.', len) != NULL ||
		    memchr(label, '\0', len) != NULL) {
			*err_off = at;
			return DNS_ERR_NAME;
		}
		if (out != NULL) {
			if (n > 0)
				out[n] = '.';
			memcpy(out + n + (n > 0), label, len);
		}
		n += (n > 0) + len;
		wire_len += 1 + (size_t)len;
	}
	if (out != NULL)
		out[n] = '\0';
	if (out_len != NULL)
		*out_len = n;
	*end = jumped ? next : c.off;
	return DNS_OK;
}

enum dns_result
dns_name_read(const uint8_t *msg, size_t msg_len, size_t *off,
    char out[DNS_NAME_MAX + 1], size_t *out_len)
{
	size_t end, err_off;
	enum dns_result r;

	r = name_read(msg, msg_len, *off, &end, out, out_len, &err_off);
	if (r == DNS_OK)
		*off = end;
	return r;
}

/*
 * Writes a presentation-form name (no escapes; one trailing dot tolerated)
 * in wire form, uncompressed.
 */
static enum dns_result
name_write(struct wbuf *w, const char *name, size_t len)
{
	size_t i, start, before = w->len;

	if (len > 0 && name[len - 1] == '.')
		len--;
	if (len > DNS_NAME_MAX || memchr(name, '\0', len) != NULL)
		return DNS_ERR_NAME;
	for (start = 0, i = 0; len > 0 && i <= len; i++) {
		if (i < len && name[i] != '.')
			continue;
		if (i == start || i - start > DNS_LABEL_MAX)
			goto bad;
		if (!put_u8(w, (uint8_t)(i - start)) ||
		    !put_bytes(w, name + start, i - start)) {
			w->len = before;
			return DNS_ERR_SPACE;
		}
		start = i + 1;
	}
	if (!put_u8(w, 0)) {
		w->len = before;
		return DNS_ERR_SPACE;
	}
	return DNS_OK;
bad:
	w->len = before;
	return DNS_ERR_NAME;
}

/*
 * Reads the fixed part of an OPT RR after its owner (RFC 6891 §6.1.2) and
 * checks that its options exactly fill RDLENGTH (§6.1.2 option layout).
 */
static enum dns_result
opt_read(struct cursor *c, struct dns_edns *e, size_t *err_off)
{
	struct cursor rd;
	uint16_t type, cls, rdlen;
	uint32_t ttl;
	size_t at = c->off;

	if (!cursor_u16(c, &type) || !cursor_u16(c, &cls) ||
	    !cursor_u32(c, &ttl) || !cursor_u16(c, &rdlen)) {
		*err_off = at;
		return DNS_ERR_SHORT;
	}
	if (type != DNS_TYPE_OPT) {
		*err_off = at;
		return DNS_ERR_EDNS;
	}
	at = c->off;
	if (!cursor_sub(c, rdlen, &rd)) {
		*err_off = at;
		return DNS_ERR_SHORT;
	}
	while (cursor_left(&rd) > 0) {
		uint16_t code, olen;

		at = c->off - rdlen + rd.off;
		if (!cursor_u16(&rd, &code) || !cursor_u16(&rd, &olen) ||
		    !cursor_skip(&rd, olen)) {
			*err_off = at;
			return DNS_ERR_EDNS;
		}
	}
	e->present = true;
	e->udp_size = cls;
	e->ext_rcode = (uint8_t)(ttl >> 24);
	e->version = (uint8_t)(ttl >> 16);
	e->do_bit = (ttl & 0x8000) != 0;
	e->option_len = rdlen;
	return DNS_OK;
}

struct header {
	uint16_t id, flags, qd, an, ns, ar;
};

static bool
header_read(struct cursor *c, struct header *h)
{
	if (cursor_left(c) < DNS_HEADER_LEN)
		return false;
	return cursor_u16(c, &h->id) && cursor_u16(c, &h->flags) &&
	    cursor_u16(c, &h->qd) && cursor_u16(c, &h->an) &&
	    cursor_u16(c, &h->ns) && cursor_u16(c, &h->ar);
}

#define FAIL(res, off) \
	do { \
		q->err_off = (off); \
		return (res); \
	} while (0)

enum dns_result
dns_parse_query(const uint8_t *msg, size_t len, struct dns_query *q)
{
	struct cursor c = cursor_make(msg, len);
	struct header h;
	enum dns_result r;
	size_t at, end;
	uint8_t root;

	memset(q, 0, sizeof(*q));
	if (!header_read(&c, &h))
		FAIL(DNS_ERR_SHORT, len);
	q->has_header = true;
	q->id = h.id;
	q->flags = h.flags;
	q->opcode = (uint8_t)DNS_FLAGS_OPCODE(h.flags);
	if (len > DNS_MSG_MAX)
		FAIL(DNS_ERR_FORMAT, DNS_MSG_MAX);
	/* Never answer an answer: two servers could bounce it forever. */
	if (h.flags & DNS_FLAG_QR)
		FAIL(DNS_ERR_RESPONSE, 2);
	if (q->opcode != DNS_OPCODE_QUERY)
		FAIL(DNS_ERR_NOT_QUERY, 2);
	/* RFC 1035 §4.1.2 allows several questions; nobody implements it. */
	if (h.qd == 0)
		FAIL(DNS_ERR_FORMAT, 4);
	if (h.qd > 1)
		FAIL(DNS_ERR_TOO_MANY, 4);
	if (h.an > 0)
		FAIL(DNS_ERR_TOO_MANY, 6);
	if (h.ns > 0)
		FAIL(DNS_ERR_TOO_MANY, 8);
	/* RFC 6891 §6.1.1: more than one OPT is FORMERR; nothing else belongs
	 * in a query's additional section for us (no TSIG, no SIG(0)). */
	if (h.ar > 1)
		FAIL(DNS_ERR_TOO_MANY, 10);

	/* A pointer in the question could only point into the header, which
	 * name_read refuses: the echoed question is self-contained. */
	if ((r = name_read(msg, len, c.off, &end, q->qname, &q->qname_len,
	         &q->err_off)) != DNS_OK)
		return r;
	at = c.off;
	(void)cursor_seek(&c, end);
	if (!cursor_u16(&c, &q->qtype) || !cursor_u16(&c, &q->qclass))
		FAIL(DNS_ERR_SHORT, end);
	q->question_len = c.off - at;
	memcpy(q->question, msg + at, q->question_len);

	if (h.ar == 1) {
		at = c.off;
		if (!cursor_u8(&c, &root))
			FAIL(DNS_ERR_SHORT, at);
		/* RFC 6891 §6.1.2: the owner MUST be 0 (root). */
		if (root != 0)
			FAIL(DNS_ERR_EDNS, at);
		if ((r = opt_read(&c, &q->edns, &q->err_off)) != DNS_OK)
			return r;
	}
	if (cursor_left(&c) > 0)
		FAIL(DNS_ERR_TRAILING, c.off);
	return DNS_OK;
}

#undef FAIL

size_t
dns_response_max_len(const struct dns_query *q, bool tcp)
{
	if (tcp)
		return DNS_MSG_MAX;
	if (!q->edns.present || q->edns.udp_size <= DNS_UDP_MAX)
		return DNS_UDP_MAX;
	if (q->edns.udp_size >= DNS_EDNS_MAX)
		return DNS_EDNS_MAX;
	return q->edns.udp_size;
}

static uint16_t
reply_flags(uint16_t query_flags, unsigned rcode)
{
	return (uint16_t)(DNS_FLAG_QR | (query_flags & DNS_FLAG_OPCODE_MASK) |
	    (query_flags & (DNS_FLAG_RD | DNS_FLAG_CD)) | DNS_FLAG_RA |
	    (rcode & DNS_FLAG_RCODE_MASK));
}

static bool
header_write(struct wbuf *w, uint16_t id, uint16_t flags, uint16_t qd,
    uint16_t an, uint16_t ar)
{
	return put_u16(w, id) && put_u16(w, flags) && put_u16(w, qd) &&
	    put_u16(w, an) && put_u16(w, 0) && put_u16(w, ar);
}

/* Our OPT RR: payload size DNS_EDNS_MAX, DO clear (we do not do DNSSEC),
 * version 0, no options (RFC 6891 §6.1.2, §7). */
static bool
opt_write(struct wbuf *w, unsigned rcode)
{
	return put_u8(w, 0) && put_u16(w, DNS_TYPE_OPT) &&
	    put_u16(w, DNS_EDNS_MAX) &&
	    put_u32(w, (uint32_t)(rcode >> 4) << 24) && put_u16(w, 0);
}

/* Writes an owner name: a pointer when its offset fits in 14 bits, else a
 * copy of the uncompressed name already in the buffer. */
static bool
owner_write(struct wbuf *w, size_t off, size_t wire_len)
{
	if (off < 0x4000)
		return put_u16(w, (uint16_t)(0xc000 | off));
	return put_bytes(w, w->p + off, wire_len);
}

/* The answer section: DNS_ERR_SPACE when it does not fit, the caller then
 * sends the question alone with TC. */
static enum dns_result
answers_write(struct wbuf *w, const struct dns_query *q,
    const struct dns_answer *answers, size_t nanswers)
{
	size_t i, owner = DNS_HEADER_LEN, owner_len = q->question_len - 4;
	bool addrs = false;

	for (i = 0; i < nanswers; i++) {
		const struct dns_answer *a = &answers[i];
		size_t rdlen_at;
		enum dns_result r;

		if (!owner_write(w, owner, owner_len) || !put_u16(w, a->type) ||
		    !put_u16(w, DNS_CLASS_IN) || !put_u32(w, a->ttl))
			return DNS_ERR_SPACE;
		rdlen_at = w->len;
		if (!put_u16(w, 0))
			return DNS_ERR_SPACE;
		switch (a->type) {
		case DNS_TYPE_A:
			if (a->addr.family != AF_INET)
				return DNS_ERR_ARG;
			if (!put_bytes(w, a->addr.b, 4))
				return DNS_ERR_SPACE;
			addrs = true;
			break;
		case DNS_TYPE_AAAA:
			if (a->addr.family != AF_INET6)
				return DNS_ERR_ARG;
			if (!put_bytes(w, a->addr.b, 16))
				return DNS_ERR_SPACE;
			addrs = true;
			break;
		case DNS_TYPE_CNAME:
			/* CNAMEs first: their owner is the one before. */
			if (addrs || a->target_len > DNS_NAME_MAX + 1)
				return DNS_ERR_ARG;
			owner = w->len;
			if ((r = name_write(w, a->target, a->target_len)) !=
			    DNS_OK)
				return r;
			owner_len = w->len - owner;
			break;
		default:
			return DNS_ERR_ARG;
		}
		w->p[rdlen_at] = (uint8_t)((w->len - rdlen_at - 2) >> 8);
		w->p[rdlen_at + 1] = (uint8_t)(w->len - rdlen_at - 2);
	}
	return DNS_OK;
}

enum dns_result
dns_build_response(const struct dns_query *q, unsigned rcode,
    const struct dns_answer *answers, size_t nanswers, size_t max_len,
    uint8_t *out, size_t *out_len)
{
	struct wbuf w = {out, max_len, 0};
	uint16_t flags, ar = q->edns.present ? 1 : 0;
	enum dns_result r = DNS_OK;

	if (max_len > DNS_MSG_MAX || rcode > DNS_RCODE_MAX ||
	    (rcode > DNS_FLAG_RCODE_MASK && !q->edns.present) ||
	    q->question_len < 5 || q->question_len > DNS_QUESTION_MAX ||
	    nanswers > UINT16_MAX)
		return DNS_ERR_ARG;
	flags = reply_flags(q->flags, rcode);
	if (header_write(&w, q->id, flags, 1, (uint16_t)nanswers, ar) &&
	    put_bytes(&w, q->question, q->question_len)) {
		r = answers_write(&w, q, answers, nanswers);
		if (r == DNS_OK && ar && !opt_write(&w, rcode))
			r = DNS_ERR_SPACE;
		if (r == DNS_OK) {
			*out_len = w.len;
			return DNS_OK;
		}
		if (r != DNS_ERR_SPACE)
			return r;
	}
	/* RFC 2181 §9: drop the whole answer and set TC; the OPT stays
	 * (RFC 6891 §7). */
	w.len = 0;
	if (!header_write(&w, q->id, flags | DNS_FLAG_TC, 1, 0, ar) ||
	    !put_bytes(&w, q->question, q->question_len) ||
	    (ar && !opt_write(&w, rcode)))
		return DNS_ERR_SPACE;
	*out_len = w.len;
	return DNS_OK;
}

enum dns_result
dns_build_header_reply(uint16_t id, uint16_t query_flags, unsigned rcode,
    uint8_t *out, size_t out_cap, size_t *out_len)
{
	struct wbuf w = {out, out_cap, 0};

	if (rcode > DNS_FLAG_RCODE_MASK)
		return DNS_ERR_ARG;
	if (!header_write(&w, id, reply_flags(query_flags, rcode), 0, 0, 0))
		return DNS_ERR_SPACE;
	*out_len = w.len;
	return DNS_OK;
}

enum dns_result
dns_build_query(uint16_t id, const char *qname, uint16_t qtype,
    uint16_t edns_udp_size, uint8_t *out, size_t out_cap, size_t *out_len)
{
	struct wbuf w = {out, out_cap, 0};
	enum dns_result r;

	if (!header_write(&w, id, DNS_FLAG_RD, 1, 0, edns_udp_size ? 1 : 0))
		return DNS_ERR_SPACE;
	if ((r = name_write(&w, qname, strnlen(qname, DNS_NAME_MAX + 2))) !=
	    DNS_OK)
		return r;
	if (!put_u16(&w, qtype) || !put_u16(&w, DNS_CLASS_IN))
		return DNS_ERR_SPACE;
	if (edns_udp_size &&
	    !(put_u8(&w, 0) && put_u16(&w, DNS_TYPE_OPT) &&
	        put_u16(&w, edns_udp_size) && put_u32(&w, 0) && put_u16(&w, 0)))
		return DNS_ERR_SPACE;
	*out_len = w.len;
	return DNS_OK;
}

/* One resource record's fixed fields (RFC 1035 §4.1.3). */
struct rr {
	size_t owner_off; /* where the owner name starts */
	size_t owner_end; /* and where it ends in place */
	uint16_t type, cls;
	uint32_t ttl;
	size_t rdata_off;
	const uint8_t *rdata;
	uint16_t rdlen;
};

/* Reads one RR (owner validated, RDATA bounds checked) and leaves the cursor
 * after it. */
static enum dns_result
rr_read(const uint8_t *msg, size_t len, struct cursor *c, struct rr *rr,
    char *owner, size_t *owner_len, size_t *err_off)
{
	enum dns_result r;
	size_t end;

	rr->owner_off = c->off;
	if ((r = name_read(
	         msg, len, c->off, &end, owner, owner_len, err_off)) != DNS_OK)
		return r;
	rr->owner_end = end;
	(void)cursor_seek(c, end);
	if (!cursor_u16(c, &rr->type) || !cursor_u16(c, &rr->cls) ||
	    !cursor_u32(c, &rr->ttl) || !cursor_u16(c, &rr->rdlen)) {
		*err_off = end;
		return DNS_ERR_SHORT;
	}
	rr->rdata_off = c->off;
	if (!cursor_bytes(c, rr->rdlen, &rr->rdata)) {
		*err_off = rr->rdata_off - 2;
		return DNS_ERR_SHORT;
	}
	return DNS_OK;
}

/* Checks the RDATA of the types we read (RFC 1035 §3.4.1, §3.3.1, RFC 3596
 * §2.2): the size of an address, or exactly one name. */
static enum dns_result
rdata_check(const uint8_t *msg, size_t len, const struct rr *rr, char *target,
    size_t *target_len, size_t *err_off)
{
	enum dns_result r;
	size_t end;

	if (rr->cls != DNS_CLASS_IN)
		return DNS_OK;
	switch (rr->type) {
	case DNS_TYPE_A:
	case DNS_TYPE_AAAA:
		if (rr->rdlen != (rr->type == DNS_TYPE_A ? 4 : 16)) {
			*err_off = rr->rdata_off - 2;
			return DNS_ERR_RDATA;
		}
		return DNS_OK;
	case DNS_TYPE_CNAME:
		/* The name may point back anywhere, but its own octets must
		 * stay inside RDATA: read it from a message cut there. */
		if ((r = name_read(msg, rr->rdata_off + rr->rdlen,
		         rr->rdata_off, &end, target, target_len, err_off)) !=
		    DNS_OK)
			return r == DNS_ERR_SHORT ? DNS_ERR_RDATA : r;
		if (end != rr->rdata_off + rr->rdlen) {
			*err_off = end;
			return DNS_ERR_RDATA;
		}
		return DNS_OK;
	}
	(void)len;
	return DNS_OK;
}

static bool
type_wanted(uint16_t type, uint16_t qtype)
{
	if (qtype == DNS_TYPE_A || qtype == DNS_TYPE_AAAA)
		return type == qtype;
	return type == DNS_TYPE_A || type == DNS_TYPE_AAAA;
}

/* True when name is one of chain[0..n). */
static bool
in_chain(const char *name, size_t len, char chain[][DNS_NAME_MAX + 1],
    const size_t *chain_len, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (name_equal(name, len, chain[i], chain_len[i]))
			return true;
	return false;
}

#define FAIL(res, off) \
	do { \
		info->err_off = (off); \
		return (res); \
	} while (0)

/* Validates every record after the question; *an_end is where the answer
 * section ends. */
static enum dns_result
sections_check(const uint8_t *msg, size_t len, struct cursor *c,
    struct dns_response_info *info, size_t *an_end)
{
	size_t i, total = (size_t)info->ancount + info->nscount + info->arcount;
	enum dns_result r;
	struct rr rr;

	*an_end = c->off;
	for (i = 0; i < total; i++) {
		bool additional = i >= (size_t)info->ancount + info->nscount;

		if ((r = rr_read(msg, len, c, &rr, NULL, NULL,
		         &info->err_off)) != DNS_OK)
			return r;
		if (rr.type == DNS_TYPE_OPT) {
			struct cursor oc = cursor_make(msg, len);

			/* RFC 6891 §6.1.1: one OPT, in the additional
			 * section, owned by the root written as one 0 octet
			 * (a pointer to a root is still not "0"). */
			if (!additional || info->edns.present ||
			    rr.owner_end != rr.owner_off + 1)
				FAIL(DNS_ERR_EDNS, rr.owner_off);
			(void)cursor_seek(&oc, rr.owner_off + 1);
			if ((r = opt_read(&oc, &info->edns, &info->err_off)) !=
			    DNS_OK)
				return r;
			info->rcode |= (unsigned)info->edns.ext_rcode << 4;
		}
		if ((r = rdata_check(
		         msg, len, &rr, NULL, NULL, &info->err_off)) != DNS_OK)
			return r;
		if (i + 1 == info->ancount)
			*an_end = c->off;
	}
	if (cursor_left(c) > 0)
		FAIL(DNS_ERR_TRAILING, c->off);
	return DNS_OK;
}

enum dns_result
dns_parse_response(const uint8_t *msg, size_t len, uint16_t expect_id,
    const char *expect_qname, uint16_t expect_qtype,
    struct dns_response_info *info, struct dns_answer *answers,
    size_t max_answers, size_t *nanswers)
{
	/* The chain's names: the qname, then each CNAME target. */
	char chain[DNS_CNAME_CHAIN_MAX + 1][DNS_NAME_MAX + 1];
	size_t chain_len[DNS_CNAME_CHAIN_MAX + 1];
	char owner[DNS_NAME_MAX + 1];
	size_t owner_len, an_start, an_end, end, i, n = 0, last = 0;
	uint16_t qtype, qclass;
	struct cursor c = cursor_make(msg, len);
	struct header h;
	enum dns_result r;
	struct rr rr;

	memset(info, 0, sizeof(*info));
	*nanswers = 0;
	chain_len[0] = strnlen(expect_qname, DNS_NAME_MAX + 1);
	if (chain_len[0] > DNS_NAME_MAX)
		return DNS_ERR_ARG;
	memcpy(chain[0], expect_qname, chain_len[0] + 1);

	if (!header_read(&c, &h))
		FAIL(DNS_ERR_SHORT, len);
	if (len > DNS_MSG_MAX)
		FAIL(DNS_ERR_FORMAT, DNS_MSG_MAX);
	info->id = h.id;
	info->flags = h.flags;
	info->rcode = h.flags & DNS_FLAG_RCODE_MASK;
	info->qdcount = h.qd;
	info->ancount = h.an;
	info->nscount = h.ns;
	info->arcount = h.ar;
	if (!(h.flags & DNS_FLAG_QR))
		FAIL(DNS_ERR_NOT_RESPONSE, 2);
	/* RFC 5452 §9.1: the id and the question must match ours. */
	if (h.id != expect_id)
		FAIL(DNS_ERR_ID, 0);
	if (DNS_FLAGS_OPCODE(h.flags) != DNS_OPCODE_QUERY)
		FAIL(DNS_ERR_NOT_QUERY, 2);
	if (h.qd == 0)
		FAIL(DNS_ERR_QUESTION, 4);
	if (h.qd > 1)
		FAIL(DNS_ERR_TOO_MANY, 4);
	if ((r = name_read(msg, len, c.off, &end, owner, &owner_len,
	         &info->err_off)) != DNS_OK)
		return r;
	i = c.off;
	(void)cursor_seek(&c, end);
	if (!cursor_u16(&c, &qtype) || !cursor_u16(&c, &qclass))
		FAIL(DNS_ERR_SHORT, end);
	if (!name_equal(owner, owner_len, chain[0], chain_len[0]) ||
	    qtype != expect_qtype || qclass != DNS_CLASS_IN)
		FAIL(DNS_ERR_QUESTION, i);
	/* RFC 2181 §9: the rest may be cut anywhere; trust none of it. */
	if (h.flags & DNS_FLAG_TC)
		FAIL(DNS_ERR_TRUNCATED_RESPONSE, 2);

	an_start = c.off;
	if ((r = sections_check(msg, len, &c, info, &an_end)) != DNS_OK)
		return r;

	/*
	 * Follow the chain whatever the order of the records (RFC 1034 §4.3.2
	 * puts the CNAME first, not every server does): one pass over the
	 * answer section per link. The records were validated above, so
	 * nothing below can fail on structure.
	 */
	for (;;) {
		size_t found = 0;
		struct cursor ac = cursor_make(msg, an_end);

		(void)cursor_seek(&ac, an_start);
		while (cursor_left(&ac) > 0) {
			if ((r = rr_read(msg, an_end, &ac, &rr, owner,
			         &owner_len, &info->err_off)) != DNS_OK)
				return r;
			if (rr.type != DNS_TYPE_CNAME ||
			    rr.cls != DNS_CLASS_IN ||
			    !name_equal(
			        owner, owner_len, chain[last], chain_len[last]))
				continue;
			/* RFC 2181 §10.1: one CNAME per name. */
			if (++found > 1)
				FAIL(DNS_ERR_CHAIN, rr.owner_off);
			if (last == DNS_CNAME_CHAIN_MAX)
				FAIL(DNS_ERR_CHAIN, rr.owner_off);
			if (n == max_answers)
				FAIL(DNS_ERR_SPACE, rr.owner_off);
			if ((r = rdata_check(msg, an_end, &rr, chain[last + 1],
			         &chain_len[last + 1], &info->err_off)) !=
			    DNS_OK)
				return r;
			memset(&answers[n], 0, sizeof(answers[n]));
			answers[n].type = DNS_TYPE_CNAME;
			answers[n].ttl = rr.ttl;
			memcpy(answers[n].target, chain[last + 1],
			    chain_len[last + 1] + 1);
			answers[n].target_len = chain_len[last + 1];
			n++;
		}
		if (found == 0)
			break;
		last++;
	}
	info->ncname = last;

	/* Addresses of the canonical name, in message order. */
	(void)cursor_seek(&c, an_start);
	c.len = an_end;
	while (cursor_left(&c) > 0) {
		if ((r = rr_read(msg, an_end, &c, &rr, owner, &owner_len,
		         &info->err_off)) != DNS_OK)
			return r;
		if (rr.cls != DNS_CLASS_IN || !type_wanted(rr.type, qtype) ||
		    !name_equal(
		        owner, owner_len, chain[last], chain_len[last])) {
			if (!(rr.type == DNS_TYPE_CNAME &&
			        rr.cls == DNS_CLASS_IN &&
			        in_chain(
			            owner, owner_len, chain, chain_len, last)))
				info->ignored++;
			continue;
		}
		if (n == max_answers) {
			info->dropped++;
			continue;
		}
		memset(&answers[n], 0, sizeof(answers[n]));
		answers[n].type = rr.type;
		answers[n].ttl = rr.ttl;
		answers[n].addr.family =
		    rr.type == DNS_TYPE_A ? AF_INET : AF_INET6;
		/* sections_check() already held rdlen to 4 or 16. */
		if (rr.rdlen > sizeof(answers[n].addr.b))
			FAIL(DNS_ERR_RDATA, rr.rdata_off - 2);
		memcpy(answers[n].addr.b, rr.rdata, rr.rdlen);
		n++;
		info->naddr++;
	}
	*nanswers = n;
	return DNS_OK;
}

#undef FAIL

enum dns_result
dns_tcp_frame_len(const uint8_t *buf, size_t len, size_t *msg_len)
{
	struct cursor c = cursor_make(buf, len);
	uint16_t n;

	if (!cursor_u16(&c, &n))
		return DNS_NEED_MORE;
	if (n < DNS_HEADER_LEN)
		return DNS_ERR_SHORT;
	if (cursor_left(&c) < n)
		return DNS_NEED_MORE;
	*msg_len = n;
	return DNS_OK;
}

void
dns_tcp_prefix(uint8_t out[2], size_t msg_len)
{
	out[0] = (uint8_t)(msg_len >> 8);
	out[1] = (uint8_t)msg_len;
}

const char *
dns_strerror(enum dns_result r)
{
	switch (r) {
	case DNS_OK:
		return "ok";
	case DNS_NEED_MORE:
		return "incomplete message";
	case DNS_ERR_SHORT:
		return "message ends inside a field";
	case DNS_ERR_FORMAT:
		return "malformed message";
	case DNS_ERR_NAME:
		return "malformed domain name";
	case DNS_ERR_POINTER:
		return "bad compression pointer (forward, looping or into the header)";
	case DNS_ERR_TRAILING:
		return "bytes after the last record";
	case DNS_ERR_TOO_MANY:
		return "more records than allowed";
	case DNS_ERR_NOT_QUERY:
		return "opcode is not QUERY";
	case DNS_ERR_RESPONSE:
		return "response where a query was expected";
	case DNS_ERR_NOT_RESPONSE:
		return "query where a response was expected";
	case DNS_ERR_ID:
		return "response id does not match the query";
	case DNS_ERR_QUESTION:
		return "response question does not match the query";
	case DNS_ERR_TRUNCATED_RESPONSE:
		return "truncated response (TC set)";
	case DNS_ERR_RDATA:
		return "record data of the wrong size";
	case DNS_ERR_EDNS:
		return "malformed or misplaced OPT record";
	case DNS_ERR_CHAIN:
		return "CNAME chain too long, looping or ambiguous";
	case DNS_ERR_SPACE:
		return "output buffer too small";
	case DNS_ERR_ARG:
		return "invalid argument";
	}
	return "unknown DNS error";
}
