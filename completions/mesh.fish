complete --keep-order --exclusive --command mesh --arguments "(COMPLETE=fish mesh -- (commandline --current-process --tokenize --cut-at-cursor) (commandline --current-token))"
