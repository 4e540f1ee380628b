from inferledger.cli import main

raise SystemExit(main())
