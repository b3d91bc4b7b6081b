"""``python -m maai``: the ``maai`` command line without the console script."""

from maai.entry import main

if __name__ == "__main__":
    main()
