from checker.cli.main import main

main()
