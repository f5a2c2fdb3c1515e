#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util.h"

static const char *wb_command;   /* the running subcommand, for the prefix */

void wb_set_command(const char *name)
{
	wb_command = name;
}

/* "wblab CMD: message", as the option parser's errors read: a message that
 * names its command first ("import: ...") gets "wblab " only */
void wb_error(const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	size_t n = wb_command ? strlen(wb_command) : 0;
	if (!n)
		fprintf(stderr, "wblab: %s\n", msg);
	else if (!strncmp(msg, wb_command, n) && msg[n] == ':')
		fprintf(stderr, "wblab %s\n", msg);
	else
		fprintf(stderr, "wblab %s: %s\n", wb_command, msg);
}

int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

int parse_double(const char *s, double *v)
{
	char *end;
	if (!s || !*s || isspace((unsigned char)*s))
		return -1;
	/* decimal only: strtod would also take 0x10, inf and nan */
	if (s[strspn(s, "0123456789+-.eE")])
		return -1;
	errno = 0;
	double x = strtod(s, &end);
	/* ERANGE also flags an underflow (1e-320): a value all the same */
	if (errno == ERANGE && fabs(x) <= DBL_MIN)
		errno = 0;
	if (errno || *end || x != x)
		return -1;
	*v = x;
	return 0;
}

int parse_size(const char *s, uint64_t *bytes)
{
	char num[32];
	size_t n = strlen(s);
	if (n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, s, n + 1);
	uint64_t mult = 1;
	switch (num[n - 1]) {
	case 'k': case 'K': mult = 1ULL << 10; break;
	case 'm': case 'M': mult = 1ULL << 20; break;
	case 'g': case 'G': mult = 1ULL << 30; break;
	case 't': case 'T': mult = 1ULL << 40; break;
	default: break;
	}
	if (mult != 1)
		num[n - 1] = 0;
	uint64_t v;
	if (parse_u64(num, &v) || (v && mult > UINT64_MAX / v))
		return -1;
	*bytes = v * mult;
	return 0;
}

FILE *fopen_regular(const char *path, int nofollow, char *err, size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO must not hang before fstat can refuse it */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
	struct stat st;
	if (fd < 0) {
		if (errno == ELOOP && nofollow)
			snprintf(err, errlen, "%s: is a symbolic link (result files must be regular files)",
				 path);
		else
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	FILE *f = fdopen(fd, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

void die_with_parent(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
		_exit(1);
}

void path_base_span(const char *p, size_t *b, size_t *len)
{
	size_t l = strlen(p);
	while (l > 1 && p[l - 1] == '/')
		l--;
	size_t s = l;
	while (s > 0 && p[s - 1] != '/')
		s--;
	*b = s;
	*len = l - s;
}

int mkdir_p(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(p);
}

int remove_tree(const char *path)
{
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int ilog2_u64(uint64_t x)
{
	return x ? 63 - __builtin_clzll(x) : 0;
}

int fls_u64(uint64_t x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

uint64_t roundup_pow2(uint64_t x)
{
	if (x <= 1)
		return 1;
	return 1ULL << (ilog2_u64(x - 1) + 1);
}

/* "00".."99": two digits a step, a division by 100 instead of two by 10 */
static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Writes u's decimal digits so that they end just before end; returns where they start. */
static char *digits_before(char *end, uint64_t u)
{
	/* four digits per 64-bit division, split by a 32-bit one */
	while (u >= 10000) {
		uint32_t r = (uint32_t)(u % 10000);
		u /= 10000;
		end -= 4;
		memcpy(end, digit_pairs + 2 * (r / 100), 2);
		memcpy(end + 2, digit_pairs + 2 * (r % 100), 2);
	}
	uint32_t v = (uint32_t)u;
	if (v >= 100) {
		end -= 2;
		memcpy(end, digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, digit_pairs + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* decimal digits of u: its bit length times log10(2), then one compare */
static int ndigits_u64(uint64_t u)
{
	static const uint64_t pow10[20] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
		10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
		100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL };
	int n = u ? (int)(((64 - __builtin_clzll(u)) * 1233) >> 12) : 0;
	return n < 20 && u >= pow10[n] ? n + 1 : n;
}

/* digits written in place, back from their end (no copy through a buffer:
 * a graph series file is mostly these) */
int fmt_lld(char *out, long long v)
{
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	int len = v < 0, n = u ? ndigits_u64(u) : 1;
	if (v < 0)
		out[0] = '-';
	digits_before(out + len + n, u);
	len += n;
	out[len] = 0;
	return len;
}

/* v = m / 2^k exactly is N / 10^k with N = m * 5^k: its decimal digits are
 * exact, so %.9g is N rounded to 9 digits (half to even, as glibc rounds the
 * exact value), trailing zeros dropped, in fixed notation for
 * 1e-4 <= |v| < 1e9.  Anything else (k > 24, N beyond 64 bits, other
 * magnitudes, a carry to 1e9, -0, inf, nan) goes to snprintf. */
int fmt_g9(char *out, double v)
{
	double a = v < 0 ? -v : v;
	if (v == 0 && !signbit(v)) {
		out[0] = '0';
		out[1] = 0;
		return 1;
	}
	if (!(a >= 1e-4 && a < 1e9))
		return snprintf(out, 32, "%.9g", v);
	/* a whole number below 1e9 has at most 9 digits: %.9g prints them all */
	if (a == (double)(int64_t)a)
		return fmt_lld(out, (long long)v);
	/* a = m * 2^e from its bits, m odd: k = -e fractional binary digits */
	uint64_t bits;
	memcpy(&bits, &a, sizeof(bits));
	uint64_t m = (bits & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
	int e = (int)((bits >> 52) & 0x7ff) - 1075;
	int tz = __builtin_ctzll(m);
	m >>= tz;
	e += tz;
	int k = e < 0 ? -e : 0;
	if (k > 24)
		return snprintf(out, 32, "%.9g", v);
	if (e > 0)
		m <<= e;          /* a < 1e9: no overflow */
	static const uint64_t pow5[25] = {
		1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125, 9765625, 48828125,
		244140625, 1220703125, 6103515625, 30517578125, 152587890625, 762939453125,
		3814697265625, 19073486328125, 95367431640625, 476837158203125,
		2384185791015625, 11920928955078125, 59604644775390625 };
	unsigned __int128 wide = (unsigned __int128)m * pow5[k];
	if (wide >> 64)
		return snprintf(out, 32, "%.9g", v);
	uint64_t nd = (uint64_t)wide, p10 = 1;
	while (k > 0 && nd % 10 == 0) {
		nd /= 10;
		k--;
	}
	static const uint64_t pow10[20] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
		10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
		100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL };
	/* digits of nd (> 0): log10 from its bit length, one compare to settle */
	int n = (int)(((64 - __builtin_clzll(nd)) * 1233) >> 12);
	if (n < 20 && nd >= pow10[n])
		n++;
	if (n > 9) {
		/* to 9 digits, half to even as printf rounds the exact value */
		p10 = pow10[n - 9];
		uint64_t q = nd / p10, r = nd % p10, half = p10 / 2;
		if (r > half || (r == half && (q & 1)))
			q++;
		if (q >= 1000000000)
			return snprintf(out, 32, "%.9g", v);   /* carried into a 10th digit */
		k -= n - 9;
		nd = q;
		n = 9;             /* q >= 10^8: nd had 10 or more digits */
		while (k > 0 && nd % 10 == 0) {
			nd /= 10;
			k--;
			n--;
		}
	}
	int len = 0;
	if (v < 0)
		out[len++] = '-';
	if (k == 0) {
		digits_before(out + len + n, nd);
		len += n;
	} else if (n > k) {
		/* integer part, '.', then k digits (leading zeros written) */
		uint64_t ip = nd / pow10[k], fp = nd % pow10[k];
		len += n - k;
		digits_before(out + len, ip);
		out[len++] = '.';
		char *d = digits_before(out + len + k, fp);
		while (d > out + len)
			*--d = '0';
		len += k;
	} else {
		out[len++] = '0';
		out[len++] = '.';
		for (int i = n; i < k; i++)
			out[len++] = '0';
		digits_before(out + len + n, nd);
		len += n;
	}
	out[len] = 0;
	return len;
}

int control_byte_at(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return (int)(p - (const unsigned char *)s);
	return -1;
}

int files_same(const char *a, const char *b)
{
	char err[256];
	FILE *fa = fopen_regular(a, 1, err, sizeof(err)), *fb = fopen_regular(b, 1, err, sizeof(err));
	int same = fa && fb;
	while (same) {
		int ca = getc(fa), cb = getc(fb);
		same = ca == cb;
		if (ca == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}
