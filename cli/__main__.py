"""``python -m cli``: the ``maai`` command line without the console script."""

from cli.app import main

if __name__ == "__main__":
    main()
