/*
** Readers/UftraceArgs.c against the C library uftrace itself uses (the
** oracle): uftrace prints floats with printf's "%#f" and "%#Lf", matches
** its regex patterns with regcomp/regexec (REG_EXTENDED | REG_NOSUB) and
** its glob patterns with fnmatch.  Random inputs from a fixed seed.
**
** usage: TestUftraceArgs floats|regex|glob [COUNT]
*/
#include <fnmatch.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Readers/Decoders/Uftrace/UftraceArgs.h"

static uint64_t Seed = 0x9E3779B97F4A7C15ULL;

static uint64_t Random64(void)
{
	Seed ^= Seed << 13;
	Seed ^= Seed >> 7;
	Seed ^= Seed << 17;
	return Seed;
}

/* What UftraceFormatArgs prints for one return value of Size bytes. */
static void FormatFloat(const void *Bytes, unsigned Size, char *Out, size_t OutSize)
{
	static CHAR Buffer[8192];
	UFTRACE_TEXT Text = { Buffer, sizeof(Buffer), 0 };
	UFTRACE_FORMAT Format = { NULL, NULL, NULL };
	UFTRACE_ARG Arg;
	BYTE Data[16] = { 0 };

	memset(&Arg, 0, sizeof(Arg));
	Arg.Index = 0;
	Arg.Format = UFTRACE_FMT_FLOAT;
	Arg.Type = UFTRACE_LOC_FLOAT;
	Arg.Size = Size;
	memcpy(Data, Bytes, Size);
	UftraceFormatArgs(&Format, &Arg, 1, TRUE, Data, 16, &Text);
	snprintf(Out, OutSize, "%.*s", (int)Text.Length, Buffer);
}

static int Floats(long Count)
{
	static char Ours[8192], Libc[8192];
	long Index, Failed = 0;

	for (Index = 0; Index < Count; Index++) {
		uint64_t Bits = Random64();
		unsigned Kind = (unsigned)(Index % 6);
		double D;
		float F;
		long double L;
		unsigned char Bytes[16] = { 0 };

		/* Bias toward values with digits on both sides of the point. */
		if (Kind == 0) {
			memcpy(&D, &Bits, 8);
		} else if (Kind == 1) {
			D = (double)(int64_t)Bits / (double)(1ULL << (Bits % 60));
		} else if (Kind == 2) {
			D = (double)(Bits % 100000000) / (1 << (Bits % 24)) + 0.5e-6 * (double)(Bits % 3);
		} else if (Kind == 3) {
			uint32_t B32 = (uint32_t)Bits;
			memcpy(&F, &B32, 4);
			FormatFloat(&F, 4, Ours, sizeof(Ours));
			snprintf(Libc, sizeof(Libc), "%#f", (double)F);
			goto Compare;
		} else {
			/* 80-bit: random mantissa, an exponent near the middle. */
			uint16_t Exponent = (uint16_t)(16383 - 70 + Random64() % 200);

			if (Kind == 5) {
				Exponent = (uint16_t)Random64();
			}
			memcpy(Bytes, &Bits, 8);
			memcpy(Bytes + 8, &Exponent, 2);
			if (Exponent & 0x7fff) {
				Bytes[7] |= 0x80;       /* the explicit integer bit */
			}
			memcpy(&L, Bytes, 10);
			FormatFloat(Bytes, 10, Ours, sizeof(Ours));
			snprintf(Libc, sizeof(Libc), "%#Lf", L);
			goto Compare;
		}
		FormatFloat(&D, 8, Ours, sizeof(Ours));
		snprintf(Libc, sizeof(Libc), "%#f", D);
Compare:
		if (strcmp(Ours, Libc) != 0) {
			if (Failed++ < 10)
				printf("FAIL: ours %s, printf %s\n", Ours, Libc);
		}
	}

	/* Ties at the sixth decimal round to even, as glibc does. */
	{
		static const double Ties[] = { 0.0078125, 0.0234375, 2.5e-7, 1.5,
					       1e300, -0.0, 5e-324, 1.0 / 3 };
		unsigned I;

		for (I = 0; I < sizeof(Ties) / sizeof(Ties[0]); I++) {
			FormatFloat(&Ties[I], 8, Ours, sizeof(Ours));
			snprintf(Libc, sizeof(Libc), "%#f", Ties[I]);
			if (strcmp(Ours, Libc) != 0 && Failed++ < 20)
				printf("FAIL: ours %s, printf %s\n", Ours, Libc);
		}
	}

	printf("%s: %ld floats (f32, f64, f80) printed as printf %%#f prints them\n",
	       Failed ? "FAIL" : "ok", Count);
	return Failed != 0;
}

/* A random pattern from regex (or glob) pieces. */
static void RandomPattern(char *Out, size_t Size, int Glob)
{
	static const char *RegexPieces[] = {
		"a", "b", "c", "_", "x", "1", ".", "*", "+", "?", "^", "$", "|",
		"(", ")", "(a|b)", "[ab]", "[^a]", "[a-c]", "[[:alpha:]]",
		"[[:digit:]_]", "{2}", "{1,2}", "{0,}", "\\.", "\\*", "ab", "b*",
		"(", ")", "[]a]", "[a-]", "a{", "}", "[z-a]", "", "{,2}", "^*",
		"$+", "()", "|", "[.a.]", "[=b=]",
	};
	static const char *GlobPieces[] = {
		"a", "b", "c", "_", "x", "1", "*", "?", "[ab]", "[!a]", "[^b]",
		"[a-c]", "[[:alpha:]]", "\\*", "\\a", "[", "]", "ab", "*b",
	};
	const char **Pieces = Glob ? GlobPieces : RegexPieces;
	size_t Count = Glob ? sizeof(GlobPieces) / sizeof(GlobPieces[0]) :
			      sizeof(RegexPieces) / sizeof(RegexPieces[0]);
	unsigned N = 1 + (unsigned)(Random64() % 6), I;

	Out[0] = '\0';
	for (I = 0; I < N; I++) {
		const char *Piece = Pieces[Random64() % Count];

		if (strlen(Out) + strlen(Piece) + 1 < Size)
			strcat(Out, Piece);
	}
}

static void RandomName(char *Out, size_t Size)
{
	static const char Letters[] = "abcx_1.*";
	unsigned N = (unsigned)(Random64() % 8), I;

	for (I = 0; I < N && I + 1 < Size; I++)
		Out[I] = Letters[Random64() % (sizeof(Letters) - 1)];
	Out[I] = '\0';
}

static int Patterns(long Count, int Glob)
{
	static BYTE Workspace[1 << 20];
	long Index, Failed = 0, Compiled = 0;

	if (UftracePatternWorkspaceSize() > sizeof(Workspace)) {
		printf("FAIL: workspace of %u bytes\n", UftracePatternWorkspaceSize());
		return 1;
	}

	for (Index = 0; Index < Count; Index++) {
		char Pattern[128], Name[16];
		UFTRACE_SPEC_ENTRY Entry;
		regex_t Regex;
		int Libc, Ours, Valid = 1, Names;

		RandomPattern(Pattern, sizeof(Pattern), Glob);
		if (!UftraceParseSpecEntry(Pattern, Pattern + strlen(Pattern),
					   UFTRACE_TRIGGER_ARGUMENT,
					   Glob ? UFTRACE_PATTERN_GLOB : UFTRACE_PATTERN_REGEX,
					   &Entry)) {
			continue;
		}
		if (!Glob && Entry.PatternType == UFTRACE_PATTERN_REGEX) {
			Valid = regcomp(&Regex, Pattern, REG_EXTENDED | REG_NOSUB) == 0;
			Compiled += Valid;
		}

		for (Names = 0; Names < 8; Names++) {
			RandomName(Name, sizeof(Name));

			/* uftrace: a plain name, a regex that compiles, or the
			 * failed regex compared as a name; or a glob. */
			if (Glob && Entry.PatternType == UFTRACE_PATTERN_GLOB)
				Libc = fnmatch(Pattern, Name, 0) == 0;
			else if (Entry.PatternType == UFTRACE_PATTERN_REGEX && Valid)
				Libc = regexec(&Regex, Name, 0, NULL, 0) == 0;
			else
				Libc = strcmp(Pattern, Name) == 0;

			Ours = UftracePatternMatch(&Entry, Workspace, Name, Name + strlen(Name));
			if (Ours != Libc && Failed++ < 10)
				printf("FAIL: %s \"%s\" on \"%s\": ours %d, libc %d\n",
				       Glob ? "glob" : "regex", Pattern, Name, Ours, Libc);
		}
		if (!Glob && Entry.PatternType == UFTRACE_PATTERN_REGEX && Valid)
			regfree(&Regex);
	}

	printf("%s: %ld %s patterns (%ld compiled by regcomp), 8 names each, "
	       "matched as %s does\n", Failed ? "FAIL" : "ok", Count,
	       Glob ? "glob" : "regex", Compiled, Glob ? "fnmatch" : "regexec");
	return Failed != 0;
}

int main(int argc, char **argv)
{
	long Count = argc > 2 ? atol(argv[2]) : 200000;

	if (argc < 2) {
		fprintf(stderr, "usage: TestUftraceArgs floats|regex|glob [COUNT]\n");
		return 2;
	}
	if (!strcmp(argv[1], "floats"))
		return Floats(Count);
	if (!strcmp(argv[1], "regex"))
		return Patterns(Count, 0);
	if (!strcmp(argv[1], "glob"))
		return Patterns(Count, 1);
	fprintf(stderr, "unknown case %s\n", argv[1]);
	return 2;
}
