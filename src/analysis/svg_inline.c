/* The report's inline SVG: gnuplot's svg files rewritten smaller and
 * checked against what a report may carry (report.c puts them in the page).
 * A result tree may come from anyone, so this is a reader of user files
 * (fuzz/fuzz_svg_inline.c). */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "svg_inline.h"
#include "../util/util.h"

/* A length in tenths of a pixel, printed in pixels: 5760 -> "576", -5 -> "-.5".
 * Written without printf: a page has millions of them. */
static void put_tenths(FILE *out, long t)
{
	char b[24], *e = b + sizeof(b), *q = e;
	unsigned long u = t < 0 ? 0UL - (unsigned long)t : (unsigned long)t;
	if (u % 10) {
		*--q = (char)('0' + u % 10);
		*--q = '.';
	}
	if (u >= 10 || u == 0)
		for (unsigned long w = u / 10;; w /= 10) {
			*--q = (char)('0' + w % 10);
			if (w < 10)
				break;
		}
	if (t < 0)
		*--q = '-';
	fwrite(q, 1, (size_t)(e - q), out);
}

/* A number of gnuplot's path data, as strtod reads it: [-]digits[.digits].
 * The value is N / 10^k with N below 2^53 and 10^k exact, so the one
 * division rounds it to the same double strtod gives (both are the exact
 * decimal rounded once); longer numbers go to strtod. */
static double path_number(const char *q, char **end)
{
	static const double pow10[] = { 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
					1e11, 1e12, 1e13, 1e14, 1e15 };
	const char *p = q;
	int neg = *p == '-';
	p += neg;
	uint64_t n = 0;
	int digits = 0, k = 0;
	for (; *p >= '0' && *p <= '9'; p++, digits++)
		n = n * 10 + (uint64_t)(*p - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, digits++, k++)
			n = n * 10 + (uint64_t)(*p - '0');
	if (!digits || digits > 15)
		return strtod(q, end);
	*end = (char *)p;
	double x = (double)n / pow10[k];
	return neg ? -x : x;
}

/* gnuplot writes path data as absolute "M x,y L x,y ..." with two decimals.
 * Rewritten to tenths of a pixel (the page shows graphs at about their
 * size), relative after each M (h, v or l, and l repeated implicitly), the
 * same path takes about a third of the bytes and draws the same.  Data with
 * anything but M, L, Z and numbers is copied as it is.  Returns the end of
 * the data (its closing quote) or NULL when it was not rewritten.  With out
 * NULL it only checks. */
static const char *compact_pass(FILE *out, const char *d, char quote)
{
	static unsigned char ok[256];
	if (!ok['M'])
		for (const char *c = "MLZ0123456789.,- \t\n"; *c; c++)
			ok[(unsigned char)*c] = 1;
	const char *end = strchr(d, quote);
	if (!end)
		return NULL;
	for (const char *q = d; q < end; q++)
		if (!ok[(unsigned char)*q])
			return NULL;
	long cx = 0, cy = 0, sx = 0, sy = 0;    /* current point, subpath start */
	char cmd = 0, last = 0;     /* last: the command the output is in */
	const char *q = d;
	while (q < end) {
		while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == ','))
			q++;
		if (q >= end)
			break;
		if (*q == 'M' || *q == 'L' || *q == 'Z') {
			cmd = *q++;
			if (cmd == 'Z') {
				if (out)
					putc_unlocked('Z', out);
				last = 'Z';
				cx = sx;
				cy = sy;
			}
			continue;
		}
		char *e1, *e2;
		double x = path_number(q, &e1);
		const char *r = e1;
		while (r < end && (*r == ',' || *r == ' '))
			r++;
		double y = path_number(r, &e2);
		if (e1 == q || e2 == r || e2 > end || !cmd || cmd == 'Z')
			return NULL;    /* not gnuplot's form: the caller copies it as it is */
		q = e2;
		if (!(fabs(x) < 1e9 && fabs(y) < 1e9))
			return NULL;    /* no graph is that large; lround would overflow */
		long X = lround(x * 10), Y = lround(y * 10);
		if (!out) {
			/* checking only */
		} else if (cmd == 'M') {
			putc_unlocked('M', out);
			put_tenths(out, X);
			putc_unlocked(',', out);
			put_tenths(out, Y);
		} else if (Y == cy) {
			putc_unlocked('h', out);
			put_tenths(out, X - cx);
		} else if (X == cx) {
			putc_unlocked('v', out);
			put_tenths(out, Y - cy);
		} else {
			if (last != 'l')
				putc_unlocked('l', out);
			else if (X - cx >= 0)
				putc_unlocked(' ', out);
			put_tenths(out, X - cx);
			if (Y - cy >= 0)
				putc_unlocked(',', out);
			put_tenths(out, Y - cy);
		}
		if (cmd == 'M') {
			last = 'M';
			sx = X;
			sy = Y;
			cmd = 'L';      /* further pairs after M are lines */
		} else {
			last = Y == cy ? 'h' : X == cx ? 'v' : 'l';
		}
		cx = X;
		cy = Y;
	}
	return end;
}

/* Checks the whole path in a pass that writes nothing, then writes it: a
 * path that fails half way is copied as it is, not twice. */
const char *svg_compact_path(FILE *out, const char *d, char quote)
{
	return compact_pass(NULL, d, quote) ? compact_pass(out, d, quote) : NULL;
}

/* What an inlined SVG may hold: the elements and attributes gnuplot's svg
 * terminal writes for our graphs, and nothing else.  A result tree may come
 * from anyone, and the HTML parser gives a script, an event handler, foreign
 * HTML or a link out of the page as much power inside an inline <svg> as
 * outside it, so the page's copy is checked (after the rewriting below, which
 * could otherwise join a split payload back together) against an allowlist:
 * tags and attribute names by name; attribute values quoted, with no '<', no
 * character reference but the five named ones (a decoded "&#40;" would make
 * "url&#40;http:" a url), url() and href only to "#fragment"; comments
 * allowed (none that the HTML parser would end before its "-->"), any other
 * markup (<!DOCTYPE, <?, CDATA) not.  Returns NULL, or
 * what was found. */
static const char *svg_disallowed(const char *s, char *why, size_t n)
{
	static const char *const elems[] = {
		"svg", "g", "path", "text", "tspan", "use", "title", "desc", "defs", "rect",
		"circle", "ellipse", "line", "polyline", "polygon", "clipPath", "filter",
		"feFlood", "feComposite", "symbol", "marker", "linearGradient", "radialGradient",
		"stop", NULL };
	static const char *const attrs[] = {
		"id", "class", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "dx",
		"dy", "width", "height", "viewBox", "d", "points", "transform", "fill",
		"fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-linecap",
		"stroke-linejoin", "stroke-dasharray", "stroke-opacity", "stroke-miterlimit",
		"opacity", "color", "font-family", "font-size", "font-weight", "font-style",
		"text-anchor", "dominant-baseline", "clip-path", "clipPathUnits", "xlink:href", "href",
		"version", "xmlns", "xmlns:xlink", "preserveAspectRatio", "result", "operator", "in",
		"in2", "flood-opacity", "flood-color", "filterUnits", "filter", "offset",
		"stop-color", "stop-opacity", "gradientUnits", "visibility", "shape-rendering",
		"textLength", "lengthAdjust", "xml:space", NULL };
	static const char *const ents[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&apos;" };
#define NAMECH(c) (isalnum((unsigned char)(c)) || (c) == ':' || (c) == '_' || (c) == '-' || (c) == '.')
#define WS(c) ((c) == ' ' || (c) == '\t' || (c) == '\n' || (c) == '\r' || (c) == '\f')
#define BAD(...) do { snprintf(why, n, __VA_ARGS__); return why; } while (0)
	for (const char *p = s; *p;) {
		if (*p != '<') {
			p++;
			continue;
		}
		if (!strncmp(p, "<!--", 4)) {
			const char *b = p + 4, *e = strstr(b, "-->");
			if (!e)
				BAD("an unclosed comment");
			/* the HTML parser ends a comment sooner than "-->" at "<!-->",
			 * "<!--->" and "--!>": what follows would be live markup */
			if (b[0] == '>' || !strncmp(b, "->", 2))
				BAD("a comment the HTML parser ends at once");
			for (const char *c = b; c < e; c++)
				if (c[0] == '-' && c[1] == '-')
					BAD("'--' inside a comment");
			p = e + 3;
			continue;
		}
		p++;
		int closing = *p == '/';
		p += closing;
		const char *nm = p;
		while (NAMECH(*p))
			p++;
		size_t nl = (size_t)(p - nm);
		int ok = nl > 0 && isalpha((unsigned char)*nm);
		for (int i = 0; ok && elems[i]; i++)
			if (strlen(elems[i]) == nl && !strncmp(elems[i], nm, nl))
				goto known;
		BAD("a <%.*s> element", (int)(nl < 40 ? nl : 40), nm);
known:
		for (;;) {
			while (WS(*p))
				p++;
			if (*p == '>') {
				p++;
				break;
			}
			if (!closing && p[0] == '/' && p[1] == '>') {
				p += 2;
				break;
			}
			if (closing)
				BAD("a closing tag with attributes");
			const char *an = p;
			while (NAMECH(*p))
				p++;
			size_t al = (size_t)(p - an);
			int known_attr = al > 0 && isalpha((unsigned char)*an);
			int i = 0;
			for (; known_attr && attrs[i]; i++)
				if (strlen(attrs[i]) == al && !strncmp(attrs[i], an, al))
					break;
			if (!known_attr || !attrs[i])
				BAD("an attribute '%.*s'", (int)(al ? (al < 40 ? al : 40) : 1), al ? an : p);
			while (WS(*p))
				p++;
			if (*p != '=')
				BAD("attribute %.*s without a value", (int)al, an);
			p++;
			while (WS(*p))
				p++;
			char q = *p;
			if (q != '"' && q != '\'')
				BAD("an unquoted value of %.*s", (int)al, an);
			const char *v = ++p, *ve = strchr(v, q);
			if (!ve)
				BAD("an unclosed value of %.*s", (int)al, an);
			int href = (al == 4 && !strncmp(an, "href", 4)) || (al == 10 && !strncmp(an, "xlink:href", 10));
			if (href && *v != '#')
				BAD("a link out of the page");
			for (const char *c = v; c < ve; c++) {
				if (*c == '<')
					BAD("'<' in the value of %.*s", (int)al, an);
				if (*c == '&') {
					size_t k = 0;
					while (k < ARRAY_SIZE(ents) && strncmp(c, ents[k], strlen(ents[k])))
						k++;
					if (k == ARRAY_SIZE(ents))
						BAD("a character reference in the value of %.*s", (int)al, an);
				}
				if (!strncasecmp(c, "url(", 4) && c[4] != '#')
					BAD("url() out of the page");
			}
			p = ve + 1;
			if (!WS(*p) && *p != '>' && *p != '/')
				BAD("attributes run together after %.*s", (int)al, an);
		}
	}
	return NULL;
#undef BAD
#undef WS
#undef NAMECH
}

/* Inlines an SVG file: XML prolog and namespace URLs dropped (the HTML parser
 * supplies the SVG namespace), ids prefixed so several graphs never clash,
 * and gnuplot's bulk trimmed: indentation, empty groups, path data (see
 * compact_path).  One pass, looking further only at '<', '\n', 'd', 'i', 'h'
 * and 'u'. */
int svg_inline(FILE *out, const char *path, const char *prefix, char *why, size_t whylen)
{
	char err[4600];
	FILE *f = fopen_regular(path, 1, err, sizeof(err));   /* not a link to /dev/zero */
	if (!f)
		return -1;
	char *buf = NULL;
	size_t cap = 0, len = 0, n;
	char chunk[65536];
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			char *nb = realloc(buf, cap);
			if (!nb)
				break;
			buf = nb;
		}
		memcpy(buf + len, chunk, n);
		len += n;
	}
	fclose(f);
	if (!buf)
		return -1;
	buf[len] = 0;
	char *p = strstr(buf, "<svg");
	if (!p) {
		free(buf);
		return -1;
	}
	/* rewritten into memory, checked, then written out */
	FILE *page = out;
	char *mem = NULL;
	size_t memlen = 0;
	out = open_memstream(&mem, &memlen);
	if (!out) {
		free(buf);
		return -1;
	}
	static const char *const drop[] = { " xmlns=\"http://www.w3.org/2000/svg\"",
					     " xmlns:xlink=\"http://www.w3.org/1999/xlink\"",
					     "\n xmlns=\"http://www.w3.org/2000/svg\"",
					     "\n xmlns:xlink=\"http://www.w3.org/1999/xlink\"" };
	static const char *const idpat[] = { "id=\"", "id='", "href=\"#", "href='#", "url(#" };
	while (*p) {
		char c = *p;
		if (c == ' ' || c == '\n') {
			int done = 0;
			for (size_t i = 0; !done && i < ARRAY_SIZE(drop); i++)
				if (drop[i][0] == c && !strncmp(p, drop[i], strlen(drop[i]))) {
					p += strlen(drop[i]);
					done = 1;
				}
			if (done)
				continue;
			if (c == '\n') {
				fputc('\n', out);
				for (p++; *p == '\t' || *p == '\n'; p++)
					;
				continue;
			}
			/* every gnuplot group is round-capped: the page's CSS says so once */
			static const char rnd[] = " stroke-linecap=\"round\" stroke-linejoin=\"round\"";
			if (p[1] == 's' && !strncmp(p, rnd, sizeof(rnd) - 1)) {
				p += sizeof(rnd) - 1;
				continue;
			}
		} else if (c == '<' && p[1] == 'g' && (p[2] == ' ' || p[2] == '>')) {
			/* <g ...></g> with nothing inside draws nothing */
			const char *e = strchr(p, '>'), *q = e ? e + 1 : NULL;
			while (q && (*q == '\n' || *q == '\t' || *q == ' '))
				q++;
			if (q && !strncmp(q, "</g>", 4)) {
				p = (char *)q + 4;
				continue;
			}
		} else if (c == 'd' && p[1] == '=' && (p[2] == '\'' || p[2] == '"') && p[-1] == ' ') {
			/* into memory first: a path that does not parse is copied as it is */
			char *pd = NULL;
			size_t pl = 0;
			FILE *m = open_memstream(&pd, &pl);
			const char *e = m ? svg_compact_path(m, p + 3, p[2]) : NULL;
			if (m)
				fclose(m);
			if (e) {
				fprintf(out, "d=%c", p[2]);
				fwrite(pd, 1, pl, out);
				fputc(p[2], out);
				p = (char *)e + 1;
			}
			free(pd);
			if (e)
				continue;
		} else if ((c == 'i' || c == 'h' || c == 'u') && !isalnum((unsigned char)p[-1])) {
			int done = 0;
			for (size_t i = 0; !done && i < ARRAY_SIZE(idpat); i++)
				if (idpat[i][0] == c && !strncmp(p, idpat[i], strlen(idpat[i]))) {
					fputs(idpat[i], out);
					fputs(prefix, out);
					p += strlen(idpat[i]);
					done = 1;
				}
			if (done)
				continue;
		}
		fputc(*p++, out);
	}
	free(buf);
	int bad = fclose(out) != 0;
	const char *no = bad ? "out of memory" : svg_disallowed(mem, why, whylen);
	if (no) {
		if (no != why)
			snprintf(why, whylen, "%s", no);
		free(mem);
		return -2;
	}
	fwrite(mem, 1, memlen, page);
	free(mem);
	return 0;
}
