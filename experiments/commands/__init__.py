"""One module per knorri-sim subcommand: each has add_arguments(parser) and run(args)."""
