"""Where the repository is: the one place every layer finds the files beside the package.

Nothing here imports anything of mishgrad: it is the ground floor, below every layer.
"""

from pathlib import Path
from typing import Final

#: The repository the package is installed from (editable, so it is found above the package).
REPOSITORY: Final = Path(__file__).resolve().parents[1]
