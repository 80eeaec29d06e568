# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_mesh_global_optspecs
    string join \n C= state= json q/quiet v/verbose color= h/help V/version
end

function __fish_mesh_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_mesh_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_mesh_using_subcommand
    set -l cmd (__fish_mesh_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c mesh -n "__fish_mesh_needs_command" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_needs_command" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_needs_command" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_needs_command" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_needs_command" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_needs_command" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_needs_command" -s V -l version -d 'Print version'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "init" -d 'Write a commented mesh.toml to start a mesh, or a complete demo mesh with --example'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "drift" -d 'Show each module\'s unused, undeclared and test-only dependencies, manifest beside imports'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "plan" -d 'Say what would be built, declared and sent, and why. Changes nothing the mesh knows'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "status" -d 'Say what is current, out of date, never told, outstanding or stuck'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "reconcile" -d 'One pass: read sources, build what is behind, declare (auto), push what is behind, collect'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "events" -d 'List the facts the mesh recorded: source-moved, built, declared, sent, applied, refused, stuck, recovered, unreachable, reachable, trouble, build-stuck, not-worked-out, artifact-damaged, forgotten, ahead, diverged, took-over, node-replaced'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "doctor" -d 'Check the store and the artifacts it names; with --repair, fix what can be fixed'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "gc" -d 'Remove what nothing needs: old builds, their artifacts, closure entries and logs'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "where" -d 'Follow a commit to every machine: where it runs, and where it does not, what holds it'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "id" -d 'Print this controller\'s name and public key, as one line to paste under `[controllers]` in the mesh.toml of a controller the nodes already trust'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "completions" -d 'Print shell completions for mesh'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "man" -d 'Write man pages: mesh.1 and one page per verb'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "push" -d 'Send declarations (and the artifacts they name) to nodes'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "collect" -d 'Read nodes\' new reports over the transport and record them'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "build" -d 'Build what is stale, in dependency order, independent modules in parallel'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "builds" -d 'List build records: id, module, commit, verdict, artifact, duration, inputs'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "declare" -d 'Make a build the declared one for a module (for `hold` modules). One write'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "graph" -d 'Show every module, its edges, and the cycles of build edges'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "node" -d 'The nodes: list them, show one, install mesh on one, see or reset whom one trusts, forget one gone from mesh.toml'
complete -c mesh -n "__fish_mesh_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mesh -n "__fish_mesh_using_subcommand init" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand init" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand init" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand init" -l force -d 'Overwrite an existing mesh.toml'
complete -c mesh -n "__fish_mesh_using_subcommand init" -l example -d 'Make a complete demo mesh in DIR, which must not exist or be empty'
complete -c mesh -n "__fish_mesh_using_subcommand init" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand init" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand init" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand drift" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand drift" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand drift" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand drift" -l check -d 'Exit 3 when anything is found, for CI'
complete -c mesh -n "__fish_mesh_using_subcommand drift" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand drift" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand drift" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand drift" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand plan" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand plan" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand plan" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand plan" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand plan" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand plan" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand plan" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand status" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand status" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand status" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand status" -l nodes -d 'Only the nodes table'
complete -c mesh -n "__fish_mesh_using_subcommand status" -l modules -d 'Only the modules table'
complete -c mesh -n "__fish_mesh_using_subcommand status" -l check -d 'Exit 3 when any node is not current (or current but silent)'
complete -c mesh -n "__fish_mesh_using_subcommand status" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand status" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand status" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand reconcile" -s j -l jobs -d 'How many builds run at once (default: the number of CPUs)' -r
complete -c mesh -n "__fish_mesh_using_subcommand reconcile" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand reconcile" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand reconcile" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand reconcile" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand reconcile" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand reconcile" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand reconcile" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand events" -l since -d 'Only facts after this sequence' -r
complete -c mesh -n "__fish_mesh_using_subcommand events" -l kind -d 'Only facts of this kind' -r -f -a "source-moved\t'A module\'s source moved'
built\t'A build ended, with its verdict'
declared\t'A build became the declared one'
sent\t'A node now holds a new declaration'
applied\t'A node runs a build of a module (read back)'
refused\t'A node refused or failed a resource'
stuck\t'The same failure three reports in a row'
recovered\t'A stuck node applied cleanly'
unreachable\t'A node could not be reached'
reachable\t'A node that could not be reached was reached'
trouble\t'mesh could not do its work on a node (refused, its mesh failed, it lost what it held)'
build-stuck\t'A build stayed outstanding for the same reason three times in a row'
not-worked-out\t'The mesh cannot say what a node should run'
artifact-damaged\t'An artifact did not match its digest: removed, and its module built again'
forgotten\t'A node gone from mesh.toml had its records dropped'
ahead\t'A node runs newer commits another controller declared: this one did not declare'
diverged\t'A node runs another controller\'s declaration from a diverged history'
took-over\t'`mesh push --take-over` replaced another controller\'s declaration'
node-replaced\t'A node\'s root answered with a new node id: it was replaced'"
complete -c mesh -n "__fish_mesh_using_subcommand events" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand events" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand events" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand events" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand events" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand events" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand events" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand doctor" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand doctor" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand doctor" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand doctor" -l repair -d 'Fix what can be fixed from the artifacts and the nodes (a damaged artifact is removed so that its module is built again); history is never invented'
complete -c mesh -n "__fish_mesh_using_subcommand doctor" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand doctor" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand doctor" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand gc" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand gc" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand gc" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand gc" -l dry-run -d 'Only list what would be removed'
complete -c mesh -n "__fish_mesh_using_subcommand gc" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand gc" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand gc" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand gc" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand where" -l repo -d 'The repository REV is in, when it names a commit in more than one' -r
complete -c mesh -n "__fish_mesh_using_subcommand where" -l wait -d 'Collect every 2 seconds (nothing else: no build, no push) until every node runs it (exit 0), something waiting cannot fix is reported — a failure or refusal on a node, an unfit, broken or blocked build, a superseded change — (exit 3), or DURATION (`10m`, `90s`) is up (exit 3). Takes the mesh\'s lock only for each collect' -r
complete -c mesh -n "__fish_mesh_using_subcommand where" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand where" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand where" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand where" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand where" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand where" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand where" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand id" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand id" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand id" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand id" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand id" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand id" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand id" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand completions" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand completions" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand completions" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand completions" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand completions" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand completions" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand man" -l out -d 'Write every page into this directory instead' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand man" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand man" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand man" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand man" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand man" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand man" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand push" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand push" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand push" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand push" -l behind -d 'Every node that is out of date or never told (the default)'
complete -c mesh -n "__fish_mesh_using_subcommand push" -l all -d 'Every node, even when current'
complete -c mesh -n "__fish_mesh_using_subcommand push" -l take-over -d 'Declare to the named nodes even where another controller declared from a history that diverged from this one\'s (recorded as taken over)'
complete -c mesh -n "__fish_mesh_using_subcommand push" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand push" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand push" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand push" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand collect" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand collect" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand collect" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand collect" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand collect" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand collect" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand collect" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand build" -s j -l jobs -d 'How many builds run at once (default: the number of CPUs)' -r
complete -c mesh -n "__fish_mesh_using_subcommand build" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand build" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand build" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand build" -l behind -d 'Build exactly the stale set (the default when no module is named)'
complete -c mesh -n "__fish_mesh_using_subcommand build" -l dry-run -d 'Print what would be built, build nothing'
complete -c mesh -n "__fish_mesh_using_subcommand build" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand build" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand build" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand build" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand builds" -s n -l limit -d 'How many of the newest builds to list' -r
complete -c mesh -n "__fish_mesh_using_subcommand builds" -l log -d 'Print the log of build ID' -r
complete -c mesh -n "__fish_mesh_using_subcommand builds" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand builds" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand builds" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand builds" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand builds" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand builds" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand builds" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand declare" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand declare" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand declare" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand declare" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand declare" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand declare" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand declare" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand graph" -l format -d 'Output format (`--json` is the same as `--format json`)' -r -f -a "text\t''
dot\t''
json\t''"
complete -c mesh -n "__fish_mesh_using_subcommand graph" -l kind -d 'Show only edges of this kind' -r -f -a "build\t''
dev\t''
optional\t''
presence\t''
instantiation\t''"
complete -c mesh -n "__fish_mesh_using_subcommand graph" -l why -d 'Print the imports that make the edge from A to B' -r
complete -c mesh -n "__fish_mesh_using_subcommand graph" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand graph" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand graph" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand graph" -l check -d 'Exit 3 when the build edges form a cycle or an import name is ambiguous'
complete -c mesh -n "__fish_mesh_using_subcommand graph" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand graph" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand graph" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand graph" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -f -a "list" -d 'List the nodes: transport, where, tags and state'
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -f -a "trust" -d 'Show which controllers a node takes declarations from, or make it forget them'
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -f -a "have" -d 'Print what this node holds: artifacts, the declaration in force, what was last applied'
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -f -a "receive" -d 'Receive artifacts and a declaration on stdin; answer the digest now held'
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -f -a "apply" -d 'Apply the declaration in force: unpack, switch, activate, read back, and report'
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -f -a "report" -d 'Print the reports newer than `--since`, one JSON object per line'
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -f -a "session" -d 'Serve the whole node protocol over one conversation on stdin/stdout (framed, versioned)'
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -f -a "serve" -d 'Answer sessions on ROOT/.session.sock until none came for `--idle` seconds'
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -f -a "show" -d 'Everything known about one node: its declaration (modules and builds), what it was last sent, what it applied, its last report, host version and failure streak'
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -f -a "install" -d 'Put this mesh binary on a node, under ROOT/bin/mesh, so it can apply'
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -f -a "forget" -d 'Drop the records of a node removed from mesh.toml'
complete -c mesh -n "__fish_mesh_using_subcommand node; and not __fish_seen_subcommand_from list trust have receive apply report session serve show install forget help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from list" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from list" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from list" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from list" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from trust" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from trust" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from trust" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from trust" -l reset -d 'Forget whom the node trusts: the next controller to declare is pinned'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from trust" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from trust" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from trust" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from trust" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from have" -l root -d 'The node\'s root directory' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from have" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from have" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from have" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from have" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from have" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from have" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from have" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from receive" -l root -d 'The node\'s root directory' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from receive" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from receive" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from receive" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from receive" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from receive" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from receive" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from receive" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from apply" -l root -d 'The node\'s root directory' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from apply" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from apply" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from apply" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from apply" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from apply" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from apply" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from apply" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from report" -l root -d 'The node\'s root directory' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from report" -l since -d 'Only reports with a higher report sequence' -r
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from report" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from report" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from report" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from report" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from report" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from report" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from report" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from session" -l root -d 'The node\'s root directory' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from session" -l linger -d 'Afterwards, keep answering sessions on ROOT/.session.sock until none came for SECS (`mesh node serve`): what the controller asks for with `[ssh] persist`' -r
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from session" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from session" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from session" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from session" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from session" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from session" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from session" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from serve" -l root -d 'The node\'s root directory' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from serve" -l idle -d 'Seconds without a session after which it exits' -r
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from serve" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from serve" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from serve" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from serve" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from serve" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from serve" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from show" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from show" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from show" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from show" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from install" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from install" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from install" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from install" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from install" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from install" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from forget" -s C -d 'The mesh directory (default: the nearest directory upward holding mesh.toml)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from forget" -l state -d 'The store file (default: .mesh/state.redb in the mesh directory)' -r -F
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from forget" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set'
always\t'Always colour'
never\t'Never colour'"
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from forget" -l json -d 'Machine-readable output on every reading verb'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from forget" -s q -l quiet -d 'Say less: only errors and what needs a person'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from forget" -s v -l verbose -d 'Say more (repeat for even more)'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from forget" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the nodes: transport, where, tags and state'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "trust" -d 'Show which controllers a node takes declarations from, or make it forget them'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "have" -d 'Print what this node holds: artifacts, the declaration in force, what was last applied'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "receive" -d 'Receive artifacts and a declaration on stdin; answer the digest now held'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "apply" -d 'Apply the declaration in force: unpack, switch, activate, read back, and report'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "report" -d 'Print the reports newer than `--since`, one JSON object per line'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "session" -d 'Serve the whole node protocol over one conversation on stdin/stdout (framed, versioned)'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "serve" -d 'Answer sessions on ROOT/.session.sock until none came for `--idle` seconds'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "show" -d 'Everything known about one node: its declaration (modules and builds), what it was last sent, what it applied, its last report, host version and failure streak'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "install" -d 'Put this mesh binary on a node, under ROOT/bin/mesh, so it can apply'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "forget" -d 'Drop the records of a node removed from mesh.toml'
complete -c mesh -n "__fish_mesh_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "init" -d 'Write a commented mesh.toml to start a mesh, or a complete demo mesh with --example'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "drift" -d 'Show each module\'s unused, undeclared and test-only dependencies, manifest beside imports'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "plan" -d 'Say what would be built, declared and sent, and why. Changes nothing the mesh knows'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "status" -d 'Say what is current, out of date, never told, outstanding or stuck'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "reconcile" -d 'One pass: read sources, build what is behind, declare (auto), push what is behind, collect'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "events" -d 'List the facts the mesh recorded: source-moved, built, declared, sent, applied, refused, stuck, recovered, unreachable, reachable, trouble, build-stuck, not-worked-out, artifact-damaged, forgotten, ahead, diverged, took-over, node-replaced'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "doctor" -d 'Check the store and the artifacts it names; with --repair, fix what can be fixed'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "gc" -d 'Remove what nothing needs: old builds, their artifacts, closure entries and logs'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "where" -d 'Follow a commit to every machine: where it runs, and where it does not, what holds it'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "id" -d 'Print this controller\'s name and public key, as one line to paste under `[controllers]` in the mesh.toml of a controller the nodes already trust'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "completions" -d 'Print shell completions for mesh'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "man" -d 'Write man pages: mesh.1 and one page per verb'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "push" -d 'Send declarations (and the artifacts they name) to nodes'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "collect" -d 'Read nodes\' new reports over the transport and record them'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "build" -d 'Build what is stale, in dependency order, independent modules in parallel'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "builds" -d 'List build records: id, module, commit, verdict, artifact, duration, inputs'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "declare" -d 'Make a build the declared one for a module (for `hold` modules). One write'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "graph" -d 'Show every module, its edges, and the cycles of build edges'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "node" -d 'The nodes: list them, show one, install mesh on one, see or reset whom one trusts, forget one gone from mesh.toml'
complete -c mesh -n "__fish_mesh_using_subcommand help; and not __fish_seen_subcommand_from init drift plan status reconcile events doctor gc where id completions man push collect build builds declare graph node help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mesh -n "__fish_mesh_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "list" -d 'List the nodes: transport, where, tags and state'
complete -c mesh -n "__fish_mesh_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "trust" -d 'Show which controllers a node takes declarations from, or make it forget them'
complete -c mesh -n "__fish_mesh_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "have" -d 'Print what this node holds: artifacts, the declaration in force, what was last applied'
complete -c mesh -n "__fish_mesh_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "receive" -d 'Receive artifacts and a declaration on stdin; answer the digest now held'
complete -c mesh -n "__fish_mesh_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "apply" -d 'Apply the declaration in force: unpack, switch, activate, read back, and report'
complete -c mesh -n "__fish_mesh_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "report" -d 'Print the reports newer than `--since`, one JSON object per line'
complete -c mesh -n "__fish_mesh_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "session" -d 'Serve the whole node protocol over one conversation on stdin/stdout (framed, versioned)'
complete -c mesh -n "__fish_mesh_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "serve" -d 'Answer sessions on ROOT/.session.sock until none came for `--idle` seconds'
complete -c mesh -n "__fish_mesh_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "show" -d 'Everything known about one node: its declaration (modules and builds), what it was last sent, what it applied, its last report, host version and failure streak'
complete -c mesh -n "__fish_mesh_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "install" -d 'Put this mesh binary on a node, under ROOT/bin/mesh, so it can apply'
complete -c mesh -n "__fish_mesh_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "forget" -d 'Drop the records of a node removed from mesh.toml'
