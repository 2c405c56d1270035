"""``python -m tranca_client bot|play ...``"""

from .cli import main

raise SystemExit(main())
