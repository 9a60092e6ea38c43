/* SPDX-License-Identifier: ISC */
/*
 * Interception CA and TLS contexts. Owns the CA key, the shared leaf key,
 * the leaf cache and the two SSL_CTXs; leaves the connections themselves to
 * intercept.c.
 */
#include <errno.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>

#include "clock.h"
#include "log.h"
#include "tls_ca.h"

#define TLS_CA_SYSTEM_ROOTS "/etc/ssl/certs/ca-certificates.crt"
#define TLS_LEAF_DAYS       30

struct leaf {
	char name[HOSTNAME_MAX + 1];
	X509 *cert;
	SSL_SESSION *upstream; /* the host's last session ticket, unused */
	uint64_t used;
};

struct tls_ca {
	EVP_PKEY *key; /* the CA's */
	X509 *cert;
	EVP_PKEY *leaf_key; /* shared by every leaf */
	SSL_CTX *server_ctx, *client_ctx;
	struct leaf *leaves;
	size_t nleaves, max;
	uint64_t tick;
	char *cert_path, *bundle_path;
	struct tls_ca_stats st;
};

const char *
tls_ca_errstr(void)
{
	static char buf[256];
	unsigned long e = ERR_get_error();

	if (e == 0)
		return "unknown error";
	ERR_error_string_n(e, buf, sizeof(buf));
	ERR_clear_error();
	return buf;
}

static bool
add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ext;

	X509V3_set_ctx_nodb(&ctx);
	X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
	if ((ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value)) == NULL)
		return false;
	X509_add_ext(cert, ext, -1);
	X509_EXTENSION_free(ext);
	return true;
}

static bool
random_serial(X509 *cert)
{
	unsigned char b[16];
	BIGNUM *bn;
	bool ok;

	if (RAND_bytes(b, sizeof(b)) != 1)
		return false;
	b[0] &= 0x7f; /* positive */
	if ((bn = BN_bin2bn(b, sizeof(b), NULL)) == NULL)
		return false;
	ok = BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) != NULL;
	BN_free(bn);
	return ok;
}

static X509 *
new_cert(EVP_PKEY *pub, const char *cn, long days)
{
	X509 *c = X509_new();
	X509_NAME *name;

	if (c == NULL)
		return NULL;
	X509_set_version(c, 2);
	if (!random_serial(c))
		goto fail;
	/* an hour of slack for clocks that disagree */
	X509_gmtime_adj(X509_getm_notBefore(c), -3600);
	X509_gmtime_adj(X509_getm_notAfter(c), days * 86400L);
	X509_set_pubkey(c, pub);
	name = X509_get_subject_name(c);
	X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
	    (const unsigned char *)"egressd", -1, -1, 0);
	X509_NAME_add_entry_by_txt(
	    name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
	return c;
fail:
	X509_free(c);
	return NULL;
}

static bool
generate_ca(struct tls_ca *ca)
{
	char cn[64];
	unsigned char r[4];

	if ((ca->key = EVP_EC_gen("P-256")) == NULL)
		return false;

	RAND_bytes(r, sizeof(r));
	snprintf(cn, sizeof(cn), "egressd interception CA %02x%02x%02x%02x",
	    r[0], r[1], r[2], r[3]);
	if ((ca->cert = new_cert(ca->key, cn, 3650)) == NULL)
		return false;
	X509_set_issuer_name(ca->cert, X509_get_subject_name(ca->cert));
	if (!add_ext(ca->cert, ca->cert, NID_basic_constraints,
	        "critical,CA:TRUE,pathlen:0") ||
	    !add_ext(ca->cert, ca->cert, NID_key_usage,
	        "critical,keyCertSign,cRLSign") ||
	    !add_ext(ca->cert, ca->cert, NID_subject_key_identifier, "hash"))
		return false;
	return X509_sign(ca->cert, ca->key, EVP_sha256()) > 0;
}

static bool
load_ca(
    struct tls_ca *ca, const struct tls_ca_opts *o, char *err, size_t errlen)
{
	FILE *f;

	if ((f = fopen(o->cert_file, "r")) == NULL) {
		snprintf(err, errlen, "--ca-cert %s: %s", o->cert_file,
		    strerror(errno));
		return false;
	}
	ca->cert = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	if ((f = fopen(o->key_file, "r")) == NULL) {
		snprintf(err, errlen, "--ca-key %s: %s", o->key_file,
		    strerror(errno));
		return false;
	}
	ca->key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (ca->cert == NULL || ca->key == NULL ||
	    X509_check_private_key(ca->cert, ca->key) != 1) {
		snprintf(err, errlen,
		    "the CA certificate and key do not load or do not match: %s",
		    tls_ca_errstr());
		return false;
	}
	return true;
}

static bool
copy_file(FILE *out, const char *path)
{
	FILE *in = fopen(path, "r");
	char buf[8192];
	size_t n;

	if (in == NULL)
		return false;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	return true;
}

/* ca.pem: the CA alone; bundle.pem: the roots egressd trusts plus the CA,
 * for the sandbox's tools (SSL_CERT_FILE and friends). World-readable:
 * certificates are public. */
static bool
write_files(
    struct tls_ca *ca, const struct tls_ca_opts *o, char *err, size_t errlen)
{
	FILE *f;

	if (mkdir(o->out_dir, 0755) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "--ca-dir %s: %s", o->out_dir,
		    strerror(errno));
		return false;
	}
	if (asprintf(&ca->cert_path, "%s/ca.pem", o->out_dir) == -1 ||
	    asprintf(&ca->bundle_path, "%s/bundle.pem", o->out_dir) == -1)
		fatal("out of memory");
	if ((f = fopen(ca->cert_path, "w")) == NULL ||
	    PEM_write_X509(f, ca->cert) != 1 || fclose(f) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", ca->cert_path,
		    strerror(errno));
		return false;
	}
	if ((f = fopen(ca->bundle_path, "w")) == NULL) {
		snprintf(err, errlen, "cannot write %s: %s", ca->bundle_path,
		    strerror(errno));
		return false;
	}
	if (!copy_file(f, o->roots ? o->roots : TLS_CA_SYSTEM_ROOTS))
		log_warn("no trusted roots copied into %s (%s unreadable)",
		    ca->bundle_path, o->roots ? o->roots : TLS_CA_SYSTEM_ROOTS);
	PEM_write_X509(f, ca->cert);
	fclose(f);
	chmod(ca->cert_path, 0644);
	chmod(ca->bundle_path, 0644);
	return true;
}

/* ALPN: HTTP/1.1 only, whatever the client offers (requests must be read). */
static int
alpn_select_cb(SSL *ssl, const unsigned char **out, unsigned char *outlen,
    const unsigned char *in, unsigned int inlen, void *arg)
{
	static const unsigned char h11[] = "\x08http/1.1";

	unsigned char *sel = NULL;

	(void)ssl;
	(void)arg;
	if (SSL_select_next_proto(&sel, outlen, h11, sizeof(h11) - 1, in,
	        inlen) == OPENSSL_NPN_NEGOTIATED) {
		*out = sel;
		return SSL_TLSEXT_ERR_OK;
	}
	return SSL_TLSEXT_ERR_NOACK; /* no ALPN: HTTP/1.1 by default */
}

static struct leaf *
leaf_find(struct tls_ca *ca, const char *name)
{
	size_t i;

	for (i = 0; i < ca->nleaves; i++)
		if (strcmp(ca->leaves[i].name, name) == 0)
			return &ca->leaves[i];
	return NULL;
}

/*
 * Upstream session resumption: a session (TLS 1.3 ticket) the real server
 * issued after a verified handshake is kept with the host's leaf and
 * offered on the next connection to that host, which then skips the
 * certificate chain (verified when the session was made). Tickets are
 * used once.
 *
 * What is kept is a copy: the session OpenSSL hands over is still the
 * connection's own, and freeing a connection that did not send close_notify
 * marks its session not resumable, which would make every offer a full
 * handshake.
 */
static int
new_session_cb(SSL *ssl, SSL_SESSION *sess)
{
	struct tls_ca *ca = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
	const char *name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
	SSL_SESSION *copy;
	struct leaf *l;

	if (ca == NULL || name == NULL || (l = leaf_find(ca, name)) == NULL ||
	    (copy = SSL_SESSION_dup(sess)) == NULL)
		return 0;
	SSL_SESSION_free(l->upstream);
	l->upstream = copy;
	return 0; /* sess itself stays OpenSSL's */
}

static bool
make_contexts(
    struct tls_ca *ca, const struct tls_ca_opts *o, char *err, size_t errlen)
{
	ca->server_ctx = SSL_CTX_new(TLS_server_method());
	ca->client_ctx = SSL_CTX_new(TLS_client_method());
	if (ca->server_ctx == NULL || ca->client_ctx == NULL) {
		snprintf(err, errlen, "OpenSSL: %s", tls_ca_errstr());
		return false;
	}
	SSL_CTX_set_min_proto_version(ca->server_ctx, TLS1_2_VERSION);
	SSL_CTX_set_min_proto_version(ca->client_ctx, TLS1_2_VERSION);
	SSL_CTX_set_options(ca->server_ctx, SSL_OP_NO_RENEGOTIATION);
	SSL_CTX_set_alpn_select_cb(ca->server_ctx, alpn_select_cb, NULL);
	SSL_CTX_set_options(ca->client_ctx, SSL_OP_NO_RENEGOTIATION);
	SSL_CTX_set_verify(ca->client_ctx, SSL_VERIFY_PEER, NULL);
	SSL_CTX_set_app_data(ca->client_ctx, ca);
	SSL_CTX_set_session_cache_mode(ca->client_ctx,
	    SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
	SSL_CTX_sess_set_new_cb(ca->client_ctx, new_session_cb);
	if (o->roots ? SSL_CTX_load_verify_locations(
	                   ca->client_ctx, o->roots, NULL) != 1 :
	               SSL_CTX_set_default_verify_paths(ca->client_ctx) != 1) {
		snprintf(err, errlen,
		    "cannot load the upstream trust store%s%s: %s",
		    o->roots ? " " : "", o->roots ? o->roots : "",
		    tls_ca_errstr());
		return false;
	}
	return true;
}

struct tls_ca *
tls_ca_new(const struct tls_ca_opts *o, char *err, size_t errlen)
{
	struct tls_ca *ca = calloc(1, sizeof(*ca));

	if (ca == NULL)
		fatal("out of memory");
	ca->max = o->cache_max ? o->cache_max : 1024;
	if ((ca->leaves = calloc(ca->max, sizeof(*ca->leaves))) == NULL)
		fatal("out of memory");
	if (o->cert_file ? !load_ca(ca, o, err, errlen) : !generate_ca(ca)) {
		if (!o->cert_file)
			snprintf(err, errlen, "cannot generate the CA: %s",
			    tls_ca_errstr());
		goto fail;
	}
	if ((ca->leaf_key = EVP_EC_gen("P-256")) == NULL) {
		snprintf(err, errlen, "cannot generate the leaf key: %s",
		    tls_ca_errstr());
		goto fail;
	}
	if (!write_files(ca, o, err, errlen) ||
	    !make_contexts(ca, o, err, errlen))
		goto fail;
	return ca;
fail:
	tls_ca_free(ca);
	return NULL;
}

void
tls_ca_free(struct tls_ca *ca)
{
	size_t i;

	if (ca == NULL)
		return;
	for (i = 0; i < ca->nleaves; i++) {
		X509_free(ca->leaves[i].cert);
		SSL_SESSION_free(ca->leaves[i].upstream);
	}
	free(ca->leaves);
	X509_free(ca->cert);
	EVP_PKEY_free(ca->key);
	EVP_PKEY_free(ca->leaf_key);
	SSL_CTX_free(ca->server_ctx);
	SSL_CTX_free(ca->client_ctx);
	free(ca->cert_path);
	free(ca->bundle_path);
	free(ca);
}

static X509 *
mint(struct tls_ca *ca, const struct hostname *host)
{
	X509 *c = new_cert(ca->leaf_key, host->name, TLS_LEAF_DAYS);
	char san[HOSTNAME_MAX + 16];

	if (c == NULL)
		return NULL;
	X509_set_issuer_name(c, X509_get_subject_name(ca->cert));
	snprintf(san, sizeof(san), "%s:%s",
	    host->kind == HOSTNAME_NAME ? "DNS" : "IP", host->name);
	if (!add_ext(c, ca->cert, NID_subject_alt_name, san) ||
	    !add_ext(c, ca->cert, NID_basic_constraints, "CA:FALSE") ||
	    !add_ext(c, ca->cert, NID_key_usage, "critical,digitalSignature") ||
	    !add_ext(c, ca->cert, NID_ext_key_usage, "serverAuth") ||
	    !add_ext(c, ca->cert, NID_authority_key_identifier, "keyid") ||
	    X509_sign(c, ca->key, EVP_sha256()) <= 0) {
		X509_free(c);
		return NULL;
	}
	return c;
}

static X509 *
leaf_for(struct tls_ca *ca, const struct hostname *host)
{
	struct leaf *slot = NULL;
	uint64_t t0;
	size_t i;

	ca->tick++;
	if ((slot = leaf_find(ca, host->name)) != NULL && slot->cert) {
		slot->used = ca->tick;
		ca->st.cache_hits++;
		return slot->cert;
	}
	if (ca->nleaves < ca->max) {
		slot = &ca->leaves[ca->nleaves++];
	} else {
		slot = &ca->leaves[0];
		for (i = 1; i < ca->nleaves; i++)
			if (ca->leaves[i].used < slot->used)
				slot = &ca->leaves[i];
		X509_free(slot->cert);
		slot->cert = NULL;
		SSL_SESSION_free(slot->upstream);
		slot->upstream = NULL;
	}
	t0 = clock_us();
	slot->cert = mint(ca, host);
	t0 = clock_us() - t0;
	ca->st.minted++;
	ca->st.mint_us_total += t0;
	if (t0 > ca->st.mint_us_max)
		ca->st.mint_us_max = t0;
	if (slot->cert == NULL) {
		slot->name[0] = '\0';
		return NULL;
	}
	snprintf(slot->name, sizeof(slot->name), "%s", host->name);
	slot->used = ca->tick;
	return slot->cert;
}

SSL *
tls_ca_server_ssl(struct tls_ca *ca, const struct hostname *host)
{
	X509 *leaf = leaf_for(ca, host);
	SSL *ssl;

	if (leaf == NULL || (ssl = SSL_new(ca->server_ctx)) == NULL)
		return NULL;
	if (SSL_use_certificate(ssl, leaf) != 1 ||
	    SSL_use_PrivateKey(ssl, ca->leaf_key) != 1 ||
	    SSL_add1_chain_cert(ssl, ca->cert) != 1) {
		SSL_free(ssl);
		return NULL;
	}
	return ssl;
}

SSL *
tls_ca_client_ssl(struct tls_ca *ca, const struct hostname *host)
{
	static const unsigned char h11[] = "\x08http/1.1";
	SSL *ssl = SSL_new(ca->client_ctx);
	struct leaf *l;

	if (ssl == NULL)
		return NULL;
	if (host->kind == HOSTNAME_NAME) {
		/* the macro casts its argument to void *: give it our copy
		 * (OpenSSL copies it again) */
		char sni[sizeof(host->name)];

		memcpy(sni, host->name, sizeof(sni));
		SSL_set_tlsext_host_name(ssl, sni);
		SSL_set1_host(ssl, host->name);
	} else {
		X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host->name);
	}
	SSL_set_alpn_protos(ssl, h11, sizeof(h11) - 1);
	if (host->kind == HOSTNAME_NAME &&
	    (l = leaf_find(ca, host->name)) != NULL && l->upstream) {
		if (SSL_set_session(ssl, l->upstream) == 1)
			ca->st.upstream_offered++;
		SSL_SESSION_free(l->upstream);
		l->upstream = NULL;
	}
	return ssl;
}

void
tls_ca_upstream_done(struct tls_ca *ca, SSL *ssl)
{
	if (SSL_session_reused(ssl))
		ca->st.upstream_resumptions++;
}

const char *
tls_ca_cert_path(const struct tls_ca *ca)
{
	return ca->cert_path;
}

const char *
tls_ca_bundle_path(const struct tls_ca *ca)
{
	return ca->bundle_path;
}

void
tls_ca_get_stats(const struct tls_ca *ca, struct tls_ca_stats *st)
{
	*st = ca->st;
}
