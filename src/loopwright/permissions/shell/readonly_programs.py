"""The programs that may run without a rule, and exactly which options they may get.

Positive knowledge only: a program is here with the options we know cannot write a file,
run another program, change the system, or read a file we would not see. A missing
option just means the command needs a rule or a decision; an extra one would let a model
write, run or read past the rules silently — so options that do any of that are *absent*
(``sort -o``, ``rg --pre``, ``grep -R``, ``date -s``, ``file -z``, ``diff -l``, ``tree -o``,
``find -exec``, ``git -c`` …). Adding an entry needs the program's manual at hand.

Operands say what the program does with its arguments: ``content`` prints what is in the
files (Read deny rules apply), ``names`` only lists or inspects them, ``text`` are not
paths at all.
"""

from __future__ import annotations

from loopwright.permissions.shell.option_parsing import ProgramOptions, program

_STD = " help version"

_CHECKSUM = program("btz", long="binary tag text zero" + _STD)

PROGRAMS: dict[str, ProgramOptions] = {
    "ls": program(
        "aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1",
        values="IwT",
        long=(
            "all almost-all author escape block-size= ignore-backups color[=] directory "
            "dired classify[=] file-type format= full-time group-directories-first "
            "no-group human-readable si dereference-command-line "
            "dereference-command-line-symlink-to-dir hide= hyperlink[=] indicator-style= "
            "inode ignore= kibibytes numeric-uid-gid literal hide-control-chars "
            "show-control-chars quote-name quoting-style= reverse recursive size sort= "
            "time= time-style= tabsize= width= context zero dereference" + _STD
        ),
        operands="names",
    ),
    "cat": program(
        "AbeEnstTuv",
        long=(
            "show-all number-nonblank show-ends number squeeze-blank show-tabs "
            "show-nonprinting" + _STD
        ),
    ),
    "tac": program("br", values="s", long="before regex separator=" + _STD),
    "head": program(
        "qvz",
        values="cn",
        long="bytes= lines= quiet silent verbose zero-terminated" + _STD,
        numeric_flag=True,
    ),
    "tail": program(
        "fFqvz",
        values="cns",
        long=(
            "bytes= follow[=] lines= pid= quiet retry silent sleep-interval= verbose "
            "zero-terminated" + _STD
        ),
        numeric_flag=True,
    ),
    "wc": program("clmwL", long="bytes chars lines words max-line-length total=" + _STD),
    "pwd": program("LP", operands="none"),
    "printf": program(operands="text"),
    "which": program("as", operands="text"),
    "type": program("afptP", operands="text"),
    "diff": program(
        "abBdeEiNnpqrsStTuwyZ",
        values="CUIxFLWD",
        paths="X",
        long=(
            "normal brief report-identical-files context[=] unified[=] ed rcs "
            "side-by-side width= left-column suppress-common-lines show-c-function "
            "show-function-line= label= expand-tabs initial-tab tabsize= "
            "suppress-blank-empty new-file unidirectional-new-file ignore-case "
            "ignore-tab-expansion ignore-trailing-space ignore-space-change "
            "ignore-all-space ignore-blank-lines ignore-matching-lines= text "
            "strip-trailing-cr minimal horizon-lines= speed-large-files recursive "
            "no-dereference exclude= exclude-from=@ starting-file= color[=] palette= "
            "from-file=@ to-file=@" + _STD
        ),
        recursive="-r --recursive",
    ),
    "cmp": program(
        "blsv", values="in", long="print-bytes ignore-initial= verbose bytes= quiet silent" + _STD
    ),
    "stat": program(
        "LftZ",
        values="c",
        long="dereference file-system format= printf= terse cached=" + _STD,
        operands="names",
    ),
    "du": program(
        "0abcDhHklLmsSxP",
        values="dBt",
        paths="X",
        long=(
            "null all apparent-size block-size= bytes total dereference-args "
            "human-readable inodes dereference count-links max-depth= no-dereference "
            "one-file-system separate-dirs si summarize threshold= time[=] time-style= "
            "exclude= exclude-from=@" + _STD
        ),
        operands="names",
    ),
    "df": program(
        "ahHiklPTv",
        values="Btx",
        long=(
            "all block-size= human-readable si inodes local no-sync sync output[=] "
            "portability print-type total type= exclude-type=" + _STD
        ),
        # df opens each operand to find its file system: a read, as far as deny rules go.
        operands="content",
    ),
    # -z/-Z run decompressors, -C writes a compiled magic file, -p sets access times.
    "file": program(
        "bcdEhiklLNnrsS0",
        values="eFP",
        paths="fm",
        long=(
            "brief checking-printout debug exclude= exclude-quiet= extension "
            "files-from=@ separator= mime mime-type mime-encoding keep-going list "
            "dereference no-dereference no-buffer no-pad raw special-files print0 "
            "magic-file=@ parameter=" + _STD
        ),
    ),
    # -o writes the listing to a file; -R reruns with -o; --fromfile reads a listing.
    "tree": program(
        "adflxpsughDFqNQrtvUCnAS",
        values="LPIH",
        long=(
            "noreport charset= filelimit= timefmt= dirsfirst sort= prune matchdirs "
            "ignore-case du si inodes device gitignore" + _STD
        ),
        operands="names",
    ),
    "cut": program(
        "snz",
        values="bcdf",
        long=(
            "bytes= characters= delimiter= fields= only-delimited complement "
            "output-delimiter= zero-terminated" + _STD
        ),
    ),
    "basename": program("az", values="s", long="multiple suffix= zero" + _STD, operands="text"),
    "dirname": program("z", long="zero" + _STD, operands="text"),
    "realpath": program(
        "eLmPqsz",
        long=(
            "canonicalize-existing canonicalize-missing logical physical quiet "
            "relative-to= relative-base= strip no-symlinks zero" + _STD
        ),
        operands="names",
    ),
    "readlink": program(
        "efmnqsvz",
        long=(
            "canonicalize canonicalize-existing canonicalize-missing no-newline quiet "
            "silent verbose zero" + _STD
        ),
        operands="names",
    ),
    # -s/--set and a bare MMDDhhmm operand set the clock (checked in commands.py);
    # -f reads dates from a file and prints its lines back in error messages.
    "date": program(
        "uR",
        values="d",
        paths="fr",
        long=(
            "date= file=@ iso-8601[=] rfc-email rfc-3339= reference=@ utc universal "
            "debug resolution" + _STD
        ),
        operands="text",
    ),
    "whoami": program(long=_STD, operands="none"),
    "id": program(
        "agGnrzZ", long="context group groups name real user zero" + _STD, operands="text"
    ),
    "uname": program(
        "asnrvmpio",
        long=(
            "all kernel-name nodename kernel-release kernel-version machine processor "
            "hardware-platform operating-system" + _STD
        ),
        operands="none",
    ),
    "nl": program(
        "p",
        values="bdfhilnsvw",
        long=(
            "body-numbering= section-delimiter= footer-numbering= header-numbering= "
            "line-increment= join-blank-lines= number-format= no-renumber "
            "number-separator= starting-line-number= number-width=" + _STD
        ),
    ),
    "od": program(
        "bcdDfFiIlLoOsSvxX",
        values="AjNtw",
        long=(
            "address-radix= endian= skip-bytes= read-bytes= format= output-duplicates "
            "strings[=] traditional width[=]" + _STD
        ),
    ),
    "base64": program("di", values="w", long="decode ignore-garbage wrap=" + _STD),
    "md5sum": _CHECKSUM,
    "sha1sum": _CHECKSUM,
    "sha224sum": _CHECKSUM,
    "sha256sum": _CHECKSUM,
    "sha384sum": _CHECKSUM,
    "sha512sum": _CHECKSUM,
    "b2sum": _CHECKSUM,
    # -o and -T write files, --compress-program runs one, --files0-from reads names.
    "sort": program(
        "bdfgiMhnRrVcCsuzm",
        values="ktS",
        long=(
            "ignore-leading-blanks dictionary-order ignore-case general-numeric-sort "
            "ignore-nonprinting month-sort human-numeric-sort numeric-sort random-sort "
            "reverse sort= version-sort batch-size= check[=] debug key= merge stable "
            "buffer-size= field-separator= unique zero-terminated parallel=" + _STD
        ),
    ),
    # A second operand is uniq's OUTPUT file.
    "uniq": program(
        "cdDiuz",
        values="fsw",
        long=(
            "count repeated all-repeated[=] skip-fields= ignore-case skip-chars= unique "
            "zero-terminated check-chars= group[=]" + _STD
        ),
        max_operands=1,
    ),
    "tr": program(
        "cdst", long="complement delete squeeze-repeats truncate-set1" + _STD, operands="text"
    ),
    "seq": program("w", values="fs", long="format= separator= equal-width" + _STD, operands="text"),
    # -R follows every symlink in the tree; -d/--directories=recurse walks like -r.
    "grep": program(
        "EFGPiyvwxclLoqsbHhnTZzUar",
        values="emABCdD",
        paths="f",
        long=(
            "extended-regexp fixed-strings basic-regexp perl-regexp regexp= file=@ "
            "ignore-case no-ignore-case word-regexp line-regexp null-data no-messages "
            "invert-match max-count= byte-offset line-number no-line-number "
            "line-buffered with-filename no-filename label= only-matching quiet silent "
            "binary-files= text directories= devices= recursive include= exclude= "
            "exclude-from=@ exclude-dir= files-without-match files-with-matches count "
            "initial-tab null before-context= after-context= context= color[=] "
            "colour[=] binary" + _STD
        ),
        operands="pattern_then_content",
        recursive="-r --recursive -d --directories",
    ),
    # --pre/--pre-glob and -z run programs on files, -L/--follow leaves the tree.
    "rg": program(
        "abcFHiIlnNopqsSUvwx0u",
        values="egtTmABCjMrEd",
        paths="f",
        long=(
            "regexp= file=@ glob= iglob= type= type-not= type-add= type-clear= "
            "ignore-case smart-case case-sensitive fixed-strings word-regexp "
            "line-regexp invert-match count count-matches files-with-matches "
            "files-without-match files line-number no-line-number with-filename "
            "no-filename heading no-heading only-matching max-count= max-depth= "
            "max-filesize= after-context= before-context= context= hidden no-ignore "
            "no-ignore-vcs no-ignore-dot no-ignore-parent no-ignore-global "
            "no-ignore-exclude ignore-file=@ multiline multiline-dotall json vimgrep "
            "color= colors= sort= sortr= stats threads= text null null-data trim column "
            "byte-offset passthru pcre2 engine= encoding= replace= max-columns= "
            "max-columns-preview no-messages quiet unrestricted binary no-config pretty "
            "type-list" + _STD
        ),
        operands="pattern_then_content",
        always_recursive=True,
    ),
}
# The same programs under the names their variants go by.
PROGRAMS["egrep"] = PROGRAMS["grep"]
PROGRAMS["fgrep"] = PROGRAMS["grep"]

# Bash builtins and trivial programs whose arguments are never options or paths.
FREE_TEXT_PROGRAMS = frozenset({"echo", "true", "false", ":"})

# find: starting points, then an expression. Only these primaries, with these arities;
# -exec/-ok/-delete/-fprint*/-fls/-files0-from are absent.
FIND_GLOBAL_OPTIONS = frozenset({"-H", "-L", "-P"})
FIND_PRIMARIES: dict[str, int] = {
    **dict.fromkeys(
        [
            "-print",
            "-print0",
            "-prune",
            "-empty",
            "-true",
            "-false",
            "-depth",
            "-xdev",
            "-mount",
            "-noleaf",
            "-readable",
            "-writable",
            "-executable",
            "-nouser",
            "-nogroup",
            "-ls",
            "-quit",
            "-daystart",
            "-follow",
            "-ignore_readdir_race",
            "-noignore_readdir_race",
            "!",
            "-not",
            "(",
            ")",
            "-a",
            "-and",
            "-o",
            "-or",
            ",",
        ],
        0,
    ),
    **dict.fromkeys(
        [
            "-name",
            "-iname",
            "-path",
            "-ipath",
            "-wholename",
            "-iwholename",
            "-regex",
            "-iregex",
            "-regextype",
            "-type",
            "-xtype",
            "-size",
            "-mtime",
            "-mmin",
            "-atime",
            "-amin",
            "-ctime",
            "-cmin",
            "-newer",
            "-anewer",
            "-cnewer",
            "-used",
            "-user",
            "-group",
            "-uid",
            "-gid",
            "-perm",
            "-links",
            "-inum",
            "-samefile",
            "-lname",
            "-ilname",
            "-maxdepth",
            "-mindepth",
            "-fstype",
            "-printf",
            "-context",
        ],
        1,
    ),
}

# test / [: the operators bash's builtin understands without evaluating anything
# (-v is absent: it evaluates an array subscript, which can run a command).
TEST_OPERATORS = frozenset(
    [
        "-a",
        "-b",
        "-c",
        "-d",
        "-e",
        "-f",
        "-g",
        "-h",
        "-k",
        "-L",
        "-N",
        "-O",
        "-G",
        "-p",
        "-r",
        "-s",
        "-S",
        "-t",
        "-u",
        "-w",
        "-x",
        "-z",
        "-n",
        "=",
        "==",
        "!=",
        "<",
        ">",
        "-eq",
        "-ne",
        "-lt",
        "-le",
        "-gt",
        "-ge",
        "-nt",
        "-ot",
        "-ef",
        "!",
        "(",
        ")",
        "-o",
    ]
)
