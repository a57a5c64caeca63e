#!/bin/sh
# agentctx for opencode: written by `agentctx install opencode`, removed by
# `agentctx uninstall opencode`. agentctx's plugin makes this opencode's
# shell, which opencode runs as `<shell> -c COMMAND` for its bash tool. For
# a call agentctx judged and put in its sandbox, the plugin hands over
# (through opencode's `shell.env`) the command it judged and the line that
# runs it there: the command's text stays as opencode's own rules saw it.
# Everything else (the user's own commands and terminals, the calls
# agentctx leaves as they are) runs in bash as it would have.
if [ -n "${AGENTCTX_OPENCODE_RUN-}" ]; then
    run=$AGENTCTX_OPENCODE_RUN
    judged=${AGENTCTX_OPENCODE_JUDGED-}
    unset AGENTCTX_OPENCODE_RUN AGENTCTX_OPENCODE_JUDGED
    if [ "$#" -ne 2 ] || [ "$1" != "-c" ] || [ "$2" != "$judged" ]; then
        echo "agentctx: opencode ran another command than the one agentctx judged, so it does not run" >&2
        exit 126
    fi
    exec /bin/sh -c "$run"
fi
for shell in /bin/bash /usr/bin/bash; do
    if [ -x "$shell" ]; then
        exec "$shell" "$@"
    fi
done
exec /bin/sh "$@"
