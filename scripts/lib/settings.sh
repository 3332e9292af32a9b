# shellcheck shell=bash
# Checks of the settings of the scripts that emulate profile archives
# (scripts/*-profiles.sh), sourced by them. A run builds ptxperf and then
# emulates for minutes to hours, so each script checks its settings before
# `cargo build`, and a bad one stops it at once with exit status 1 and a
# message naming it. The checks live here so that the six scripts refuse
# the same values with the same words (crates/validate/tests/
# profiles_scripts.rs checks the messages).
#
# The scripts read their settings as ${NAME-default}, not ${NAME:-default}:
# only an unset variable takes the default, and an empty one (NAME=) reaches
# these checks and is refused instead of standing for the default.
#
# Each function takes NAME VALUE SCRIPT: the setting's name, its value and
# the script's name that starts the message, and exits 1 with the message
# on stderr when VALUE is refused.

# A positive number: digits without a leading zero.
setting_positive() {
  case $2 in
    '' | *[!0-9]* | 0*) echo "$3: $1 must be a positive number, not '$2'" >&2; exit 1 ;;
  esac
}

# A number: digits, zero allowed (a seed).
setting_number() {
  case $2 in
    '' | *[!0-9]*) echo "$3: $1 must be a number, not '$2'" >&2; exit 1 ;;
  esac
}

# `all` or a positive number of configurations (a sample size).
setting_all_or_positive() {
  case $2 in
    all) ;;
    '' | *[!0-9]* | 0*) echo "$3: $1 must be \`all\` or a positive number of configurations, not '$2'" >&2; exit 1 ;;
  esac
}

# `none` or a positive number of UNIT: NAME VALUE SCRIPT UNIT (dedisp's
# BUDGET, in warp instructions).
setting_none_or_positive() {
  case $2 in
    none) ;;
    '' | *[!0-9]* | 0*) echo "$3: $1 must be \`none\` or a positive number of $4, not '$2'" >&2; exit 1 ;;
  esac
}

# Anything but empty or blanks only (a list such as KTCONV_GPUS).
setting_nonempty() {
  case $2 in
    *[![:space:]]*) ;;
    *) echo "$3: $1 must not be empty or blank, not '$2'" >&2; exit 1 ;;
  esac
}
