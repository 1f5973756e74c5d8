from convkgyarn.cli import main

main()
