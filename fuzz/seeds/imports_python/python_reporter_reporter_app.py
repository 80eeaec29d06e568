import os
from mesh_common import (
    fmt,
)
from . import schema_path


def main():
    print(fmt(os.getcwd()), schema_path)
